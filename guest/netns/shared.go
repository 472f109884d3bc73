package netns

import (
	"context"
	"fmt"
	"os"
)

// sharedFiles are the files a namespace's commands see exactly as this
// process does: `ip netns exec` only remounts /sys and bind-mounts
// /etc/netns/NS over /etc, and this is not per network namespace —
// /proc/stat's CPU times are the whole system's (fs/proc/stat.c reads
// every possible CPU's kernel_cpustat, whatever namespace asks). Files
// under /proc/net, /proc/sys/net or /sys differ by namespace and are never
// served here.
var sharedFiles = map[string]bool{"/proc/stat": true}

// ReadShared reads path in this process when the namespace sees it as this
// process does (sharedFiles): guest.SharedFileReader.
func (t *Transport) ReadShared(ctx context.Context, path string) ([]byte, bool, error) {
	if !sharedFiles[path] {
		return nil, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, true, fmt.Errorf("%s: read %s: %w", t.guest, path, err)
	}
	return data, true, nil
}
