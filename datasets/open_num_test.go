package datasets

import (
	"math"
	"testing"
)

func TestParseCount(t *testing.T) {
	tests := []struct {
		in     string
		max    int64
		want   int64
		wantOK bool
	}{
		{"0", 10, 0, true},
		{"10", 10, 10, true},
		{"11", 10, 0, false},
		{"", 10, 0, false},
		{"1x", 10, 0, false},
		{"-1", 10, 0, false},
		{"2305843009213693951", math.MaxInt64 / 4, math.MaxInt64 / 4, true},
		// Found by FuzzReadMTX: 1e19 wrapped around to a negative count.
		{"10000000000000000000", math.MaxInt64 / 4, 0, false},
		{"99999999999999999999999", math.MaxInt64, 0, false},
	}
	for _, tc := range tests {
		got, ok := parseCount([]byte(tc.in), tc.max)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseCount(%q, %d) = %d, %v; want %d, %v", tc.in, tc.max, got, ok, tc.want, tc.wantOK)
		}
	}
}
