//go:build !purego

package compute

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCPUFamily checks cpuFamily on known signatures (CPUID leaf 1's EAX)
// and, where Linux lists it, amdFamily19h against /proc/cpuinfo.
func TestCPUFamily(t *testing.T) {
	for _, c := range []struct {
		name string
		sig  uint32
		want uint32
	}{
		{"Zen 4 (EPYC 9004)", 0x00A10F11, 0x19},
		{"Zen 3 (EPYC 7003)", 0x00A00F11, 0x19},
		{"Zen 2 (EPYC 7002)", 0x00830F10, 0x17},
		{"Zen 5", 0x00B00F21, 0x1A},
		{"Sapphire Rapids", 0x000806F8, 6},
	} {
		if got := cpuFamily(c.sig); got != c.want {
			t.Errorf("%s: family %#x, want %#x", c.name, got, c.want)
		}
	}
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo to check amdFamily19h against")
	}
	defer f.Close()
	var vendor string
	family := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() && (vendor == "" || family < 0) {
		k, v, ok := strings.Cut(sc.Text(), ":")
		switch k, v = strings.TrimSpace(k), strings.TrimSpace(v); {
		case !ok:
		case k == "vendor_id":
			vendor = v
		case k == "cpu family":
			family, _ = strconv.Atoi(v)
		}
	}
	if want := vendor == "AuthenticAMD" && family == 0x19; amdFamily19h != want {
		t.Errorf("amdFamily19h %v, but /proc/cpuinfo says vendor %q, family %d", amdFamily19h, vendor, family)
	}
}
