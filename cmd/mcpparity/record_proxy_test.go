package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordHelp: every flag of both record modes is shown, on stdout, and
// help is not an error.
func TestRecordHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		var out, errs bytes.Buffer
		if code := dispatch(context.Background(), []string{"record", arg}, &out, &errs); code != 0 {
			t.Errorf("record %s: exit %d, want 0\n%s", arg, code, errs.String())
		}
		for _, flag := range []string{"-check", "-everything", "-golden", "-out", "-upstream ", "-upstream-cmd", "-listen",
			"-secret", "-header", "-sdk-module", "-sdk-version", "-name"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("record %s: help lacks %s:\n%s", arg, flag, out.String())
			}
		}
		if !strings.Contains(out.String(), "manifest.sdkModule") {
			t.Errorf("record %s: help does not say where --sdk-module goes:\n%s", arg, out.String())
		}
	}
}

// TestRecordProxyFlagForms: -upstream and --upstream, with a space or an
// "=", all select the recording proxy.
func TestRecordProxyFlagForms(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	out := filepath.Join(t.TempDir(), "f.json")
	for _, args := range [][]string{
		{"-upstream", dead}, {"--upstream", dead}, {"-upstream=" + dead}, {"--upstream=" + dead},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), append(append([]string{"record"}, args...), "-out", out), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "unreachable") {
			t.Errorf("record %v: exit %d, want 1 with the unreachable upstream named\n%s", args, code, stderr.String())
		}
	}
}
