package redfish

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// collectionTTL bounds how long an expanded collection is reused. A plan
// refreshes every volume and disk group of an array within moments, so one
// expanded read of the collection serves them all; any write through the
// endpoint drops the cache, so an apply always reads its own changes.
const collectionTTL = 10 * time.Second

type cachedItems struct {
	at    time.Time
	items []json.RawMessage
	err   error
	done  chan struct{}

	// The drives decoded from items, once per fetch: a plan asks for an
	// array's drives from every disk group, spare set, layout and drives
	// data source, and decoding each drive again was most of the
	// provider's own CPU in those reads.
	drivesOnce sync.Once
	drives     []Drive
	drivesErr  error
}

type collectionCache struct {
	mu      sync.Mutex
	entries map[string]*cachedItems
}

func (c *collectionCache) invalidate() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}

// cachedMembers returns the expanded members of uri (member is the JSON
// member holding them), fetching once for concurrent callers.
func (e *Endpoint) cachedMembers(ctx context.Context, uri, member string) ([]json.RawMessage, error) {
	ent, err := e.cachedEntry(ctx, uri, member)
	if err != nil {
		return nil, err
	}
	return ent.items, nil
}

// cachedEntry is the cache entry of a fetched collection (ent.err nil).
func (e *Endpoint) cachedEntry(ctx context.Context, uri, member string) (*cachedItems, error) {
	key := uri + "#" + member
	c := &e.cache
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*cachedItems{}
	}
	if ent, ok := c.entries[key]; ok && time.Since(ent.at) < collectionTTL {
		c.mu.Unlock()
		select {
		case <-ent.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if ent.err == nil {
			return ent, nil
		}
		c.mu.Lock()
		if c.entries[key] == ent {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		return e.cachedEntry(ctx, uri, member)
	}
	ent := &cachedItems{at: time.Now(), done: make(chan struct{})}
	c.entries[key] = ent
	c.mu.Unlock()
	ent.items, ent.err = e.expandMembers(ctx, uri, member)
	close(ent.done)
	if ent.err != nil {
		c.mu.Lock()
		if c.entries[key] == ent {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		return nil, ent.err
	}
	return ent, nil
}
