package lab

import (
	"fmt"
	"strconv"
)

// ClientName is the name of client i (1-based) of n: client01..client64 as
// before for up to 99 clients, zero-padded to n's width beyond, so the
// names sort in order (client0001..client1000).
func ClientName(i, n int) string {
	w := max(2, len(strconv.Itoa(n)))
	return fmt.Sprintf("client%0*d", w, i)
}
