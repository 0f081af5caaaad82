package mutations

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type execResult struct {
	out       string
	dur       time.Duration
	err       error
	timedOut  bool
	cancelled bool
	stopped   bool // by its watch
}

func (x execResult) failure() error {
	if x.timedOut {
		return errors.New("timed out")
	}
	if x.err == nil {
		return errors.New("unexpected verdict")
	}
	return x.err
}

// exitCode is the command's exit code: 0 when it succeeded, -1 when it did
// not run or ended by a signal.
func (x execResult) exitCode() int {
	var ee *exec.ExitError
	switch {
	case x.err == nil:
		return 0
	case errors.As(x.err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// exec runs argv in dir, in a session of its own, under timeout, with env
// added to the environment. Its output goes to a file in scratch (not a
// pipe: a leftover grandchild holding a pipe would delay the end), and go's
// own temporary files go to scratch too (GOTMPDIR), so that they are
// removed with it. When the timeout passes or ctx is cancelled, and again
// once the command has ended, every process of its session is killed: go's
// children, the test binary, and what the tests started, even in process
// groups of their own (the pool starts stdio servers in their own group).
func (r *Runner) exec(ctx context.Context, timeout time.Duration, dir, scratch string, argv []string, env ...string) execResult {
	return r.execWatch(ctx, timeout, dir, scratch, argv, nil, env...)
}

// execWatch is exec, with watch (when not nil) given the output every
// 50 ms: when it returns true the command is stopped (x.stopped).
func (r *Runner) execWatch(ctx context.Context, timeout time.Duration, dir, scratch string, argv []string, watch func(string) bool, env ...string) execResult {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wctx, stop := context.WithCancel(tctx)
	defer stop()
	outFile, err := os.CreateTemp(scratch, "output-*.txt")
	if err != nil {
		return execResult{err: err}
	}
	defer os.Remove(outFile.Name())
	defer outFile.Close()
	cmd := exec.CommandContext(wctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOTMPDIR="+scratch), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = outFile
	cmd.Stderr = outFile
	cmd.Cancel = func() error {
		killSession(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	var stopped atomic.Bool
	var watching sync.WaitGroup
	if err = cmd.Start(); err == nil {
		if watch != nil {
			watching.Go(func() { watchOutput(wctx, outFile.Name(), watch, func() { stopped.Store(true); stop() }) })
		}
		err = cmd.Wait()
		stop()
		watching.Wait()
		killSession(cmd.Process.Pid)
	}
	x := execResult{dur: time.Since(start), err: err, stopped: stopped.Load()}
	if raw, rerr := os.ReadFile(outFile.Name()); rerr == nil {
		x.out = string(raw)
	}
	switch {
	case ctx.Err() != nil:
		x.cancelled, x.stopped = true, false
	case x.stopped:
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		x.timedOut = true
	}
	return x
}

// watchOutput gives watch the content of file every 50 ms until ctx ends;
// when watch returns true it calls stop and returns.
func watchOutput(ctx context.Context, file string, watch func(string) bool, stop func()) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if raw, err := os.ReadFile(file); err == nil && watch(string(raw)) {
				stop()
				return
			}
		}
	}
}

// killSession kills the process group sid and every process of the session
// sid (found in /proc; the group only where there is no /proc).
func killSession(sid int) {
	_ = syscall.Kill(-sid, syscall.SIGKILL)
	for range 5 {
		pids := sessionMembers(sid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionMembers lists the live (not zombie) processes of session sid.
func sessionMembers(sid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session …; comm may hold spaces.
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if id, err := strconv.Atoi(f[3]); err == nil && id == sid {
			out = append(out, pid)
		}
	}
	return out
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// clipValue shortens a value of a difference for the report.
func clipValue(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
