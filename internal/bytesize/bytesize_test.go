package bytesize

import "testing"

// The inputs the four parsers this package replaced accepted (beegfs-ctl
// chunk sizes, the lab's beegfs-ctl, the benchmark tools' options, the
// lab's --drive-size) read as they did.
func TestParseKeepsOldInputs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"524288", 524288}, {"512k", 512 << 10}, {"512K", 512 << 10}, {"1m", 1 << 20}, {"1M", 1 << 20},
		{"1MiB", 1 << 20}, {"1 MiB", 1 << 20}, {" 512k ", 512 << 10}, {"2g", 2 << 30}, {"2G", 2 << 30},
		{"4k", 4096}, {"128g", 128 << 30}, {"4KiB", 4096}, {"4KB", 4096}, {"4kb", 4096}, {"0", 0}, {"512", 512},
		{"1t", 1 << 40}, {"8M", 8 << 20}, {"128G", 128 << 30},
	} {
		if got, err := Parse(c.in); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "-1k", "k", "1x", "1.5k", "1e3", "12 MiBs", "9999999999999p", "9223372036854775807k"} {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"12TB", 12e12}, {"960GB", 960e9}, {"4TiB", 4 << 40}, {"1.92TB", 1.92e12}, {"512GiB", 512 << 30},
		{"1000000", 1000000}, {"800B", 800},
	} {
		if got, err := ParseDecimal(c.in); err != nil || got != c.want {
			t.Errorf("ParseDecimal(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"-1TB", "TB", "12XB", "99999999999999TB"} {
		if got, err := ParseDecimal(in); err == nil {
			t.Errorf("ParseDecimal(%q) = %d, want an error", in, got)
		}
	}
}
