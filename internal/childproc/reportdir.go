// The report folder is the protocol between the replays and the harness
// that starts them, through files: both sides use it.
//
// The harness holds a lock on its run's lock file (RunLock) while the run
// lasts: a server started with --while-locked ends once no one holds it.
// Each stdio replay process writes into its server's folder (Dir):
//
//   - <pid>.pid, locked while the process lives (created under another
//     name and renamed once locked, so never seen unlocked too early): the
//     harness counts the processes a target started, and those alive;
//   - <pid>.recv, one line per request method received, as they arrive;
//   - <pid>.json, the report, written once, atomically (WriteAtomic).
//
// A server's faults-once marker (FaultsOnce) is created by the first
// process that applies its faults. A recording the harness copied into the
// run's folder (Fixture) is read by a replay given its name, before the
// embedded fixture of that name.

package childproc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	pidExt    = ".pid"
	recvExt   = ".recv"
	reportExt = ".json"
)

// RunLock is the lock file of a run in its reports folder.
func RunLock(reports string) string { return filepath.Join(reports, "harness.lock") }

// FaultsOnce is the marker file of a server whose faults apply once.
func FaultsOnce(reports, server string) string {
	return filepath.Join(reports, server+".faults-used")
}

// Fixture is where the harness copies the fixture name (e.g.
// "sdk/stdio.json") for a run's stdio replays: a container target shares
// the reports folder.
func Fixture(reports, name string) string {
	return filepath.Join(reports, ".fixtures", filepath.FromSlash(name))
}

// Dir is the folder of one stdio server's processes.
type Dir string

// Fixture is the run's copy of the fixture name, when the harness made
// one (ok false otherwise): the server's folder is in the run's folder.
func (d Dir) Fixture(name string) (file string, ok bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	file = Fixture(filepath.Dir(string(d)), name)
	_, err := os.Stat(file)
	return file, err == nil
}

func (d Dir) file(pid int, ext string) string {
	return filepath.Join(string(d), strconv.Itoa(pid)+ext)
}

// PIDFile, RecvFile and ReportFile are the files of process pid.
func (d Dir) PIDFile(pid int) string    { return d.file(pid, pidExt) }
func (d Dir) RecvFile(pid int) string   { return d.file(pid, recvExt) }
func (d Dir) ReportFile(pid int) string { return d.file(pid, reportExt) }

// PIDs lists the processes that started, sorted.
func (d Dir) PIDs() ([]int, error) { return d.list(pidExt) }

// Reports lists the processes that wrote their report, sorted.
func (d Dir) Reports() ([]int, error) { return d.list(reportExt) }

// Receivers lists the processes that record their requests, sorted.
func (d Dir) Receivers() ([]int, error) { return d.list(recvExt) }

func (d Dir) list(ext string) ([]int, error) {
	entries, err := os.ReadDir(string(d))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		if s, ok := strings.CutSuffix(e.Name(), ext); ok {
			if pid, err := strconv.Atoi(s); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	sort.Ints(pids)
	return pids, nil
}

// Announce creates this process's pid file, locked until the returned file
// is closed (or the process ends).
func (d Dir) Announce(pid int) (*os.File, error) {
	final := d.PIDFile(pid)
	f, err := Hold(final + ".new")
	if err == nil {
		err = os.Rename(final+".new", final)
	}
	if err != nil && f != nil {
		f.Close()
		return nil, err
	}
	return f, err
}

// Hold creates path and holds an exclusive lock on it until the file is
// closed.
func Hold(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Held reports whether another process holds a lock on path; a file that
// does not exist is held by no one. Locks work across PID namespaces (a
// target in a container).
func Held(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close() // also releases a lock just taken
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// pollLock is how often WhileHeld looks at its lock.
const pollLock = 100 * time.Millisecond

// WhileHeld returns a context that ends with ctx or once no other process
// holds a lock on path: a server left behind by a client ends with the run
// that started it.
func WhileHeld(ctx context.Context, path string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(pollLock)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if held, err := Held(path); !held || err != nil {
				cancel()
				return
			}
		}
	}()
	return ctx, cancel
}

// WriteAtomic writes data to path through a temporary file renamed over
// it: a reader sees the whole file or none.
func WriteAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
