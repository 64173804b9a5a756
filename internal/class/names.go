package class

import (
	"strings"
	"unicode"
)

// MaxNameLen is the longest display name, in characters: it keeps the
// leaderboard's name column and the chart's legend narrow.
const MaxNameLen = 20

// MaxMessageLen is the longest pushed message, in characters.
const MaxMessageLen = 200

// SanitizeName makes a display name out of what a participant typed (or
// its SSH user name): control and other non-printable characters go (an
// escape sequence cannot reach another participant's terminal), runs of
// spaces become one, the ends are trimmed and the rest is cut to
// MaxNameLen characters. It may return "".
func SanitizeName(s string) string { return clean(s, MaxNameLen) }

// DefaultName is SanitizeName(user), or "participant" when nothing of it is
// left.
func DefaultName(user string) string {
	if n := SanitizeName(user); n != "" {
		return n
	}
	return "participant"
}

// SanitizeMessage cleans an instructor's message like a name, cut to
// MaxMessageLen characters.
func SanitizeMessage(s string) string { return clean(s, MaxMessageLen) }

// clean keeps the printable characters of s, one space for each run of
// white space (a tab or a newline included), trimmed and cut to max
// characters.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if n >= max {
			break
		}
		switch {
		case unicode.IsSpace(r):
			space = n > 0
			continue
		case !unicode.IsPrint(r) || r == unicode.ReplacementChar:
			continue
		}
		if space {
			if n+1 >= max {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// fold is the form in which two names are the same: case does not tell
// participants apart on a projected board.
func fold(name string) string { return strings.ToLower(name) }
