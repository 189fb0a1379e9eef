package clipboard

// On Windows atotto/clipboard reads the clipboard through user32 and
// looks up no tool: its initialiser loads the DLLs, as the UI needs them.
import atotto "github.com/atotto/clipboard"

func readAll() (string, error) { return atotto.ReadAll() }
