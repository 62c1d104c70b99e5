package udiff

import "testing"

func TestDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"new file", "", "a\nb\n", "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"deleted", "a\n", "", "--- f\n+++ f\n@@ -1 +0,0 @@\n-a\n"},
		{"one line", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\n6\n7\n8\n",
			"--- f\n+++ f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"no newline", "a", "b\n", "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "A\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nB\n",
			"--- f\n+++ f\n@@ -1,4 +1,4 @@\n-1\n+A\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+B\n"},
		{"append", "a\nb\n", "a\nb\nc\n", "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff("f", []byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got := Line("vm.dirty_ratio", "40", "20"); got != "-vm.dirty_ratio = 40\n+vm.dirty_ratio = 20\n" {
		t.Errorf("got %q", got)
	}
}
