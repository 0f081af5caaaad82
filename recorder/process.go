package recorder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/fixtures"
)

// TeeProcess records one server process of a client that may start
// several (a reconnection), for the recording record makes: it runs the
// server command as RunProxy does over stdio, and writes each line, as
// it passes, to dir/process-N.jsonl (one JSON line each, not redacted; N
// counts the processes of dir in the order they start). A process killed
// by its client (a failed handshake is ended at once) leaves every line
// it passed.
func TeeProcess(ctx context.Context, command, dir string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, err := claimProcess(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd, err := ServerCommand(command)
	if err != nil {
		return err
	}
	cmd.Stderr = stderr
	s := NewStdio(cmd)
	s.StopTimeout = DefaultStopTimeout
	var werr error
	s.OnLine = func(l fixtures.Line) {
		b, err := json.Marshal(l)
		if err == nil {
			_, err = f.Write(append(b, '\n'))
		}
		werr = errors.Join(werr, err)
	}
	if err := s.Run(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return werr
}

// claimProcess creates the file of the next process of dir.
func claimProcess(dir string) (*os.File, error) {
	for n := 1; ; n++ {
		f, err := os.OpenFile(processPath(dir, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if !os.IsExist(err) {
			return f, err
		}
	}
}

func processPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("process-%d.jsonl", n))
}

// ReadProcesses reads the processes TeeProcess wrote into dir, in order,
// each line with its process number.
func ReadProcesses(dir string) ([]fixtures.Line, error) {
	var lines []fixtures.Line
	for n := 1; ; n++ {
		data, err := os.ReadFile(processPath(dir, n))
		if os.IsNotExist(err) && n > 1 {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("no server process was recorded: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, maxLineBytes+1024)
		for sc.Scan() {
			var l fixtures.Line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				return nil, fmt.Errorf("%s: %w", processPath(dir, n), err)
			}
			if n > 1 {
				l.Process = n
			}
			lines = append(lines, l)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", processPath(dir, n), err)
		}
	}
}
