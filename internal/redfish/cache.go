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
			return ent.items, nil
		}
		c.mu.Lock()
		if c.entries[key] == ent {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		return e.cachedMembers(ctx, uri, member)
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
	}
	return ent.items, ent.err
}
