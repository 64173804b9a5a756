package datasets

import (
	"math"
	"strconv"
)

// Hand-rolled number parsing for the hot loops of the loaders. Each function
// takes one field (no surrounding blanks) and returns a short reason on
// failure, which the caller turns into a *ParseError with the line.

// parseIndex parses a 1-based index: decimal digits only, value in [1, max].
func parseIndex(b []byte, max int) (int, string) {
	if len(b) == 0 {
		return 0, "missing index"
	}
	n := 0
	for _, c := range b {
		d := int(c) - '0'
		if d < 0 || d > 9 {
			return 0, "index " + quoteField(b) + " is not a positive integer"
		}
		n = n*10 + d
		if n > max {
			return 0, "index " + quoteField(b) + " out of range [1, " + strconv.Itoa(max) + "]"
		}
	}
	if n == 0 {
		return 0, "index 0 out of range [1, " + strconv.Itoa(max) + "] (indices are 1-based)"
	}
	return n, ""
}

// parseCount parses a non-negative decimal integer no larger than max.
func parseCount(b []byte, max int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		d := int64(c) - '0'
		if d < 0 || d > 9 {
			return 0, false
		}
		// Checked before the multiplication, which could otherwise wrap
		// around to a negative number that passes a later n > max test.
		if n > (max-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseIntValue parses an optionally signed decimal integer as a float32
// value. Integers beyond ±2^53 are refused rather than rounded twice.
func parseIntValue(b []byte) (float32, string) {
	neg := false
	s := b
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, "value " + quoteField(b) + " is not an integer"
	}
	var n uint64
	for _, c := range s {
		d := uint64(c) - '0'
		if d > 9 {
			return 0, "value " + quoteField(b) + " is not an integer"
		}
		n = n*10 + d
		if n > 1<<53 {
			return 0, "value " + quoteField(b) + " out of range"
		}
	}
	f := float32(n)
	if neg {
		f = -f
	}
	return f, ""
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseRealValue parses a decimal or scientific number as a finite float32,
// correctly rounded (the same value as strconv.ParseFloat(s, 32)).
//
// Fast path: [sign] digits [. digits] with at most 15 significant digits is
// m / 10^k with m and 10^k exact in float64, so one correctly rounded division
// gives the nearest float64; rounding that to float32 is correct unless the
// float64 lies exactly halfway between two float32s, which is checked.
// Everything else (exponents, long mantissas, "nan", "inf") goes to strconv.
func parseRealValue[T text](b T) (float32, string) {
	if f, ok := fastReal(b); ok {
		return f, ""
	}
	f, err := strconv.ParseFloat(string(b), 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, "value " + quoteField([]byte(b)) + " out of float32 range"
		}
		return 0, "value " + quoteField([]byte(b)) + " is not a number"
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "value " + quoteField([]byte(b)) + " is not finite"
	}
	return float32(f), ""
}

// text is what the number parsers accept without converting.
type text interface{ ~string | ~[]byte }

func fastReal[T text](s T) (float32, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if frac >= 0 {
				return 0, false
			}
			frac = i
			continue
		}
		d := uint64(c) - '0'
		if d > 9 {
			return 0, false
		}
		if m == 0 && d == 0 {
			// leading zeros are not significant
		} else {
			digits++
		}
		m = m*10 + d
	}
	if digits > 15 || len(s) == 0 || (frac >= 0 && len(s) == 1) {
		return 0, false
	}
	k := 0
	if frac >= 0 {
		k = len(s) - frac - 1
	}
	if k >= len(pow10) {
		return 0, false
	}
	x := float64(m) / pow10[k]
	// A float64 exactly halfway between two float32s has its 29 low mantissa
	// bits equal to 1 followed by 28 zeros.
	if math.Float64bits(x)&(1<<29-1) == 1<<28 {
		return 0, false
	}
	f := float32(x)
	if neg {
		f = -f
	}
	return f, true
}
