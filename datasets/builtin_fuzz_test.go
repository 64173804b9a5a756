package datasets

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzGetBuiltinSpec: any name gives a valid spec or an error wrapping
// ErrUnknownBuiltin, never a panic; a "NAME:SEED" that parses is NAME's
// spec with Seed SEED.
func FuzzGetBuiltinSpec(f *testing.F) {
	for _, s := range []string{"default", "fedsc6:31", "fednest2:305", "default:0", "fedsc6:", ":3", "fedsc6:-1", "a:b:c", "../default", "default:18446744073709551615", "default:18446744073709551616"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		spec, err := GetBuiltinSpec(name)
		if err != nil {
			if !errors.Is(err, ErrUnknownBuiltin) {
				t.Fatalf("%q: error %v does not wrap ErrUnknownBuiltin", name, err)
			}
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("%q: returned spec is invalid: %v", name, err)
		}
		if base, s, ok := strings.Cut(name, ":"); ok {
			want, _ := strconv.ParseUint(s, 10, 64)
			if spec.Seed != want {
				t.Fatalf("%q: seed %d, want %d", name, spec.Seed, want)
			}
			if _, err := GetBuiltinSpec(base); err != nil {
				t.Fatalf("%q resolved but its base %q does not: %v", name, base, err)
			}
		}
	})
}
