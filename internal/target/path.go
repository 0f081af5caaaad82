package target

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// pathPlaceholder in a scenario's env stands for the harness's own PATH:
// "{workspace}/bin:{path}" puts the scenario's launchers first and keeps
// every interpreter a target may be started through (node, python3, a
// shell). The scenario's HideCommands are then made unreachable through
// it (see Env.Hide).
const pathPlaceholder = "{path}"

// ExpandPath replaces {path} in v with the harness's own PATH.
func ExpandPath(v string) string {
	return strings.ReplaceAll(v, pathPlaceholder, os.Getenv("PATH"))
}

// lookPathIn finds an executable in the folders of a PATH value, as a
// process started with that PATH would, skipping the commands of hide
// outside the folder keep (the scenario's own launchers).
func lookPathIn(path, name string, hide []string, keep string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir != keep && slices.Contains(hide, name) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// hiddenPath returns path with the commands of hide unreachable outside the
// folder keep, for a target that is a process of its own: each folder
// holding one of them is replaced by a folder of links to its other
// entries. Making links is slow on some systems, so these folders are
// kept in the user's cache folder and made once per folder content.
func hiddenPath(path string, hide []string, keep string) (string, error) {
	if len(hide) == 0 {
		return path, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(path) {
		real := d
		if r, err := filepath.EvalSymlinks(d); err == nil {
			real = r
		}
		if d == "" || seen[real] {
			continue
		}
		seen[real] = true
		if d == keep || !holdsAny(d, hide) {
			out = append(out, d)
			continue
		}
		shim, err := shimDir(real, hide)
		if err != nil {
			return "", err
		}
		out = append(out, shim)
	}
	return strings.Join(out, string(filepath.ListSeparator)), nil
}

func holdsAny(dir string, names []string) bool {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// shimDir returns a folder of links to the entries of dir but hide, made
// once for a given content of dir (its modification time).
func shimDir(dir string, hide []string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", dir, st.ModTime().UnixNano(), strings.Join(hide, "\x00"))))
	shim := filepath.Join(cache, "mcpparity", "path-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(shim); err == nil {
		return shim, nil
	}
	if err := os.MkdirAll(filepath.Dir(shim), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(shim), "path-tmp-")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	for _, e := range entries {
		if slices.Contains(hide, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	if err := os.Rename(tmp, shim); err != nil {
		os.RemoveAll(tmp) // made meanwhile by another run
		if _, serr := os.Stat(shim); serr != nil {
			return "", err
		}
	}
	return shim, nil
}
