package provider

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// livePools remembers the endpoint pools of this process, so that the
// process can log out of every BMC session before it exits (iDRACs allow
// only a few sessions; leaked ones hold a slot until they expire).
var livePools sync.Map // *redfish.Pool -> struct{}

func registerPool(p *redfish.Pool) { livePools.Store(p, struct{}{}) }

// CloseSessions logs out of every Redfish and SANtricity session this
// process opened. The
// provider's main calls it after the plugin server stops.
func CloseSessions(ctx context.Context) error {
	var errs []error
	livePools.Range(func(k, _ any) bool {
		errs = append(errs, k.(*redfish.Pool).Close(ctx))
		livePools.Delete(k)
		return true
	})
	errs = append(errs, closeESeries(ctx))
	return errors.Join(errs...)
}

// traceSink is where the Redfish and SANtricity clients log requests: nil
// when the provider's logs are off (main sets TF_LOG_PROVIDER=OFF unless a
// TF_LOG* variable asks for logs), so no response body is redacted and
// formatted for nobody to read.
func traceSink(ctx context.Context) func(string) {
	if strings.EqualFold(os.Getenv("TF_LOG_PROVIDER"), "off") {
		return nil
	}
	return func(msg string) { tflog.Trace(ctx, msg) }
}
