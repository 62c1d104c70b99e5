package facts

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"0-3", []int{0, 1, 2, 3}},
		{"0-1,8,10-11\n", []int{0, 1, 8, 10, 11}},
		{"", []int{}},
		{"5-2,x,7", []int{7}},
	}
	for _, tt := range tests {
		if got := ParseCPUList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
