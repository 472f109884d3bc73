package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/lab-bench/lab/guest"
)

// ReadCPU samples per-CPU times on any guest lab drives, without knowing
// its OS: it asks the way the default OS does (/proc/stat on Linux) and,
// when that command ran and failed, the way each other registered OS does
// (kern.cp_times on FreeBSD), in guest.Names order. On Linux it runs
// exactly what Linux's reader runs. A lost connection is returned as is,
// never retried as another OS.
func ReadCPU(ctx context.Context, t guest.Transport) (map[int]CPUTimes, error) {
	var errs error
	for _, name := range guest.Names() {
		d := guest.For(name)
		if d.CPU.Times == nil {
			continue
		}
		m, err := d.CPU.Times(ctx, t)
		if err == nil {
			return m, nil
		}
		if errs == nil {
			errs = err
		} else {
			errs = fmt.Errorf("%w (and %s: %v)", errs, d.Kernel, err)
		}
		var ce *guest.CommandError
		if !errors.As(err, &ce) || ce.Err != nil || ce.ExitCode <= 0 {
			break // not a command that ran and failed: no other OS's answer will come
		}
	}
	return nil, errs
}
