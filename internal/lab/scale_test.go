package lab

import (
	"slices"
	"testing"
)

// Client names keep the two-digit form of small labs (examples and docs
// name client01) and, past 99 clients, sort in their numeric order, as
// examples/r1 sorts the lab's node names to pick its clients.
func TestClientNames(t *testing.T) {
	for _, c := range []struct {
		i, n int
		want string
	}{{1, 2, "client01"}, {64, 64, "client64"}, {7, 100, "client007"}, {1000, 1000, "client1000"}, {1, 1000, "client0001"}} {
		if got := ClientName(c.i, c.n); got != c.want {
			t.Errorf("ClientName(%d, %d) = %s, want %s", c.i, c.n, got, c.want)
		}
	}
	var names []string
	for i := 1; i <= 1000; i++ {
		names = append(names, ClientName(i, 1000))
	}
	if !slices.IsSorted(names) {
		t.Error("1000 client names do not sort in numeric order")
	}
	if _, err := Up(Config{Design: "r1", Dir: t.TempDir(), Clients: MaxClients + 1}); err == nil {
		t.Errorf("%d clients accepted, want the limit %d refused", MaxClients+1, MaxClients)
	}
}
