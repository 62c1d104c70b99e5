package redfish

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Pool holds the named endpoints of one provider process. Endpoints are
// built up front (cheap, no I/O) and log in on first use.
type Pool struct {
	mu        sync.Mutex
	endpoints map[string]*Endpoint
}

// NewPool builds one endpoint per config; names must be unique.
func NewPool(cfgs []Config) (*Pool, error) {
	p := &Pool{endpoints: map[string]*Endpoint{}}
	for _, c := range cfgs {
		if _, dup := p.endpoints[c.Name]; dup {
			return nil, fmt.Errorf("%w: endpoint %q configured twice", ErrInvalid, c.Name)
		}
		ep, err := NewEndpoint(c)
		if err != nil {
			return nil, err
		}
		p.endpoints[c.Name] = ep
	}
	return p, nil
}

// Endpoint returns the endpoint called name, or ErrUnknownEndpoint listing
// the names that exist.
func (p *Pool) Endpoint(name string) (*Endpoint, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ep, ok := p.endpoints[name]; ok {
		return ep, nil
	}
	return nil, fmt.Errorf("%w: %q (configured: %v)", ErrUnknownEndpoint, name, p.namesLocked())
}

// Names lists the configured endpoint names, sorted.
func (p *Pool) Names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.namesLocked()
}

func (p *Pool) namesLocked() []string {
	names := make([]string, 0, len(p.endpoints))
	for n := range p.endpoints {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Close logs out of every open session.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	eps := make([]*Endpoint, 0, len(p.endpoints))
	for _, ep := range p.endpoints {
		eps = append(eps, ep)
	}
	p.mu.Unlock()
	// In parallel: the process may have only a moment left before it is killed.
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ep.Close(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
