package operation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// CheckChdir checks the lab directory -chdir names before any verb runs,
// as Terraform's -chdir does: one that does not exist, or is not a
// directory, is an error naming it, instead of the verb finding no lab
// files there (or init creating it).
func CheckChdir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-chdir=%s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("-chdir=%s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("-chdir=%s: not a directory", dir)
	}
	return nil
}
