package transport_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// One pool per provider process; one Options per node, built from the
// provider's SSH defaults and the node's own settings.
func ExamplePool_Apply() {
	pool := transport.NewPool(transport.PoolOptions{
		MaxParallel: 32, // nodes worked on at once
		MaxPerHost:  4,  // calls sharing one node's connection
		Warn:        func(msg string) { fmt.Println(msg) },
	})
	defer pool.Close()

	node := transport.Options{
		Host:            "st01.example.org",
		User:            "deploy",
		Sudo:            true,
		PrivateKeyFile:  "/home/deploy/.ssh/id_ed25519",
		KnownHostsFiles: []string{"/etc/hpcstorage/known_hosts"},
		Bastion: &transport.Options{
			Host: "jump.example.org", User: "deploy",
			HostKeys: []string{"SHA256:Ew0D6Ooq6gK4dYJqV1uJpyS3q1ZxW8J0tjI8QnHvTQs"},
		},
		RunTimeout: 5 * time.Minute,
	}
	spec := []byte(`{"apiVersion":"hpcstorage/v1","owner":"r1-storage-tuning",
	  "items":[{"sysctl":{"key":"vm.dirty_ratio","value":"20"}}]}`)

	resp, err := pool.Apply(context.Background(), node, transport.Request{Spec: spec, Check: true, Diff: true})
	var se *transport.StepError
	switch {
	case errors.Is(err, transport.ErrUnknownHost), errors.Is(err, transport.ErrHostKeyMismatch):
		fmt.Println("host key problem:", err) // the message says how to pin the key
	case errors.Is(err, transport.ErrItemFailed):
		fmt.Println("some items failed:", resp.Result.Items)
	case errors.As(err, &se):
		fmt.Printf("%s failed at %s (exit %d): %s\n", se.Host, se.Step, se.ExitStatus, se.Stderr)
	case err == nil:
		for _, it := range resp.Result.Items {
			fmt.Println(it.ID, it.Changed, it.Diff)
		}
	}
}
