//go:build unix

package recorder_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteFile(path, sampleFixture()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if _, err := fixtures.Decode(path, data); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestWriteFileMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f.json")
	err := recorder.WriteFile(path, sampleFixture())
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v does not name %s", err, path)
	}
}

// TestWriteFileUnwritableFolder writes into a folder the writer may not
// write to: as a normal user through permissions, as root by running the
// writer (this test binary) as nobody.
func TestWriteFileUnwritableFolder(t *testing.T) {
	base, err := os.MkdirTemp("", "mcpparity-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(filepath.Join(base, "out"), 0o755)
		os.RemoveAll(base)
	})
	out := filepath.Join(base, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "f.json")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}

	var msg string
	if os.Geteuid() != 0 {
		if err := os.Chmod(out, 0o555); err != nil {
			t.Fatal(err)
		}
		err := recorder.WriteFile(path, sampleFixture())
		if err == nil {
			t.Fatal("writing into a read-only folder succeeded")
		}
		msg = err.Error()
	} else {
		msg = writeAsNobody(t, base, path)
	}
	if !strings.Contains(msg, path) {
		t.Errorf("error %q does not name %s", msg, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Errorf("previous file changed: %q", data)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("files left in the folder: %v", entries)
	}
}

// writeAsNobody runs WriteFile in a copy of the test binary as user nobody
// and returns its error output.
func writeAsNobody(t *testing.T, base, path string) string {
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "writer.test")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=write-fixture", envWritePath+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	outb, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("writing as nobody into a root folder succeeded: %s", outb)
	}
	if _, ok := err.(*exec.ExitError); !ok {
		t.Skipf("cannot run as nobody: %v", err)
	}
	return string(outb)
}

func copyFile(t *testing.T, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
