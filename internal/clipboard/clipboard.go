// Package clipboard reads the system clipboard for the terminal UI's text
// inputs (ctrl+v), with the tools github.com/atotto/clipboard used: on
// Linux and the BSDs wl-paste (under Wayland), xclip, xsel,
// termux-clipboard-get or, under WSL, powershell.exe Get-Clipboard;
// pbpaste on macOS; the Windows clipboard there. Unlike that package,
// which looked them up on PATH in its initialiser (about fifty stats at
// the start of every process, whatever its command), the tool is looked
// up on the first paste.
package clipboard

// ReadAll returns the clipboard's text.
func ReadAll() (string, error) { return readAll() }
