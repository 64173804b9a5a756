package datasets

import (
	"cmp"
	"strings"
)

// naturalCompare orders class names naturally: runs of decimal digits compare
// by numeric value (any length, leading zeros ignored, then fewer leading
// zeros first), everything else byte by byte. So "2" < "10" < "B cell" and
// "c2" < "c10". Equal names compare equal; it is a total order.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			ei, ej := i, j
			for ei < len(a) && isDigit(a[ei]) {
				ei++
			}
			for ej < len(b) && isDigit(b[ej]) {
				ej++
			}
			ra, rb := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if len(ra) != len(rb) {
				return cmp.Compare(len(ra), len(rb))
			}
			if c := strings.Compare(ra, rb); c != 0 {
				return c
			}
			if ei-i != ej-j {
				return cmp.Compare(ei-i, ej-j)
			}
			i, j = ei, ej
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	return cmp.Compare(len(a)-i, len(b)-j)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
