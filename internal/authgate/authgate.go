// Package authgate serialises the logins of an API client (the Redfish
// endpoint, the SANtricity client): concurrent first requests wait for one
// login instead of opening a session each, and a session refused by several
// requests at once is renewed once. The client keeps its own credentials;
// the gate only counts logins and holds the login lock.
package authgate

import (
	"context"
	"sync"
	"sync/atomic"
)

// Gate is the zero-value-ready login gate of one client.
type Gate struct {
	login sync.Mutex   // held for a whole login or logout
	gen   atomic.Int64 // bumped on every change of credentials
}

// Gen is the number of credential changes so far; a request records it
// with the credentials it sent, to renew only those.
func (g *Gate) Gen() int64 { return g.gen.Load() }

// Bump records new credentials. Call it under the lock that guards the
// credentials, so a request reads them and Gen as one pair.
func (g *Gate) Bump() { g.gen.Add(1) }

// Ensure runs login unless ready says a login already happened.
func (g *Gate) Ensure(ctx context.Context, ready func() bool, login func(context.Context) error) error {
	if ready() {
		return nil
	}
	g.login.Lock()
	defer g.login.Unlock()
	if ready() {
		return nil
	}
	return login(ctx)
}

// Renew runs login unless another request renewed the credentials since
// failedGen (the Gen it sent with).
func (g *Gate) Renew(ctx context.Context, failedGen int64, login func(context.Context) error) error {
	g.login.Lock()
	defer g.login.Unlock()
	if g.Gen() != failedGen {
		return nil
	}
	return login(ctx)
}

// Locked runs f with the login lock held (a logout must not race a login).
func (g *Gate) Locked(f func()) {
	g.login.Lock()
	defer g.login.Unlock()
	f()
}
