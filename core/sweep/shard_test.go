package sweep

import (
	"slices"
	"testing"
)

// TestShardPartition: for every grid size and shard count, the shards are
// disjoint, their union is the whole grid, each keeps grid order, sizes
// differ by at most one, and Select agrees with Holds.
func TestShardPartition(t *testing.T) {
	for total := 0; total <= 40; total++ {
		for count := 1; count <= 45; count++ {
			owner := make([]int, total)
			sizes := make([]int, count)
			for i := 1; i <= count; i++ {
				sh := Shard{Index: i, Count: count}
				sel := sh.Select(total)
				if !slices.IsSorted(sel) {
					t.Fatalf("%d points, shard %v: %v not in grid order", total, sh, sel)
				}
				for _, k := range sel {
					if !sh.Holds(k) {
						t.Fatalf("%d points, shard %v selects %d but does not hold it", total, sh, k)
					}
					if owner[k] != 0 {
						t.Fatalf("%d points: point %d in shard %d and %v", total, k, owner[k], sh)
					}
					owner[k] = i
				}
				sizes[i-1] = len(sel)
			}
			for k, o := range owner {
				if o == 0 {
					t.Fatalf("%d points, %d shards: point %d in no shard", total, count, k)
				}
			}
			if len(sizes) > 0 && slices.Max(sizes)-slices.Min(sizes) > 1 {
				t.Fatalf("%d points, %d shards: sizes %v differ by more than one", total, count, sizes)
			}
		}
	}
}

// TestShardRoundRobin pins the documented rule: point k is in shard
// k mod n + 1, so a grid of 7 runs in 3 shards is {0,3,6} {1,4} {2,5}.
func TestShardRoundRobin(t *testing.T) {
	for i, want := range [][]int{{0, 3, 6}, {1, 4}, {2, 5}} {
		if got := (Shard{Index: i + 1, Count: 3}).Select(7); !slices.Equal(got, want) {
			t.Errorf("shard %d/3 of 7: %v, want %v", i+1, got, want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}, "100000/100000": {100000, 100000}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "0/4", "5/4", "-1/4", "1/0", "1/-3", "a/b", "1/2/3", "1/100001", "1.5/2", "/", "2/"} {
		if got, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", in, got)
		}
	}
}

// FuzzParseShard: never panics; what it accepts is valid and prints back
// to an equivalent value.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", "0/0", "9999999999999999999/1", " 1/ 2", "1/2/3", "-0/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Validate() != nil {
			t.Fatalf("ParseShard(%q) accepted invalid %+v", s, sh)
		}
		again, err := ParseShard(sh.String())
		if err != nil || again != sh {
			t.Fatalf("ParseShard(%q) = %v does not round-trip: %v, %v", s, sh, again, err)
		}
	})
}
