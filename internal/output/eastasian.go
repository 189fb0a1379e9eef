package output

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// tableEastAsian reports whether a table's padding counts East Asian
// ambiguous-width runes as wide, decided once, on the first table drawn, as
// tablewriter decided it (its width package did so in its initialiser, in
// every process; the tables are tablewriter's bytes): RUNEWIDTH_EASTASIAN
// when it says yes or no; else narrow on a terminal known as modern (by
// TERM_PROGRAM, TERM, WSL, VTE, Alacritty, Windows Terminal, ConEmu); else
// wide in a Chinese, Japanese or Korean locale (LC_ALL, LC_CTYPE, LANG).
// The second result: box-drawing runes (U+2500-U+257F) count narrow even
// then, when the terminal is a modern one.
var tableEastAsian = sync.OnceValues(func() (wide, narrowBoxes bool) {
	wide = eastAsianWide()
	return wide, wide && modernTerminal()
})

func eastAsianWide() bool {
	switch strings.ToLower(os.Getenv("RUNEWIDTH_EASTASIAN")) {
	case "0", "off", "false", "no":
		return false
	case "1", "on", "true", "yes":
		return true
	}
	if modernTerminal() {
		return false
	}
	return cjkLocale()
}

// modernTerminals are the TERM_PROGRAM and TERM values of terminals that draw
// ambiguous-width runes narrow whatever the locale.
var modernTerminals = []string{
	"vscode", "visual studio code", "iterm.app", "iterm2", "windows terminal", "windowsterminal",
	"alacritty", "kitty", "hyper", "tabby", "terminus", "fluentterminal", "warp", "ghostty", "rio",
	"jetbrains-jediterm", "xterm-kitty", "xterm-ghostty", "wezterm",
}

func modernTerminal() bool {
	if p := os.Getenv("TERM_PROGRAM"); p != "" && slices.Contains(modernTerminals, strings.ToLower(p)) {
		return true
	}
	if os.Getenv("TERM_PROGRAM_WSL") != "" {
		return true
	}
	term := strings.ToLower(os.Getenv("TERM"))
	if runtime.GOOS == "windows" {
		if os.Getenv("WT_PROFILE_ID") != "" || os.Getenv("ConEmuANSI") == "ON" ||
			term != "" && (strings.Contains(term, "xterm") || strings.Contains(term, "vt")) {
			return true
		}
	}
	if os.Getenv("VTE_VERSION") != "" || os.Getenv("ALACRITTY_LOG") != "" {
		return true
	}
	if term == "" {
		return false
	}
	return slices.Contains(modernTerminals, term) ||
		strings.Contains(term, "xterm") && !strings.Contains(term, "xterm-mono") ||
		strings.Contains(term, "screen") || strings.Contains(term, "tmux")
}

// cjkLocale reports whether the locale (LC_ALL, else LC_CTYPE, else LANG)
// is Chinese, Japanese or Korean, by language or by region.
func cjkLocale() bool {
	locale := os.Getenv("LC_ALL")
	if locale == "" {
		locale = os.Getenv("LC_CTYPE")
	}
	if locale == "" {
		locale = os.Getenv("LANG")
	}
	if locale == "" || locale == "C" || locale == "POSIX" {
		return false
	}
	if i := strings.IndexByte(locale, '.'); i >= 0 {
		locale = locale[:i]
	}
	if i := strings.IndexByte(locale, '@'); i >= 0 {
		locale = locale[:i]
	}
	locale = strings.ToLower(locale)
	for _, p := range []string{"zh", "ja", "ko", "chi", "zho", "jpn", "kor", "chinese", "japanese", "korean"} {
		if strings.HasPrefix(locale, p) {
			return true
		}
	}
	parts := strings.Split(locale, "_")
	for _, r := range parts[1:] {
		switch r {
		case "cn", "tw", "hk", "mo", "jp", "kr", "kp", "sg":
			return true
		}
	}
	return false
}
