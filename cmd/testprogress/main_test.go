package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    b_test.go:9: boom\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0.1}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.2}
{"Action":"fail","Package":"p","Elapsed":1}
`
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out.String())
	}
	for _, want := range []string{"p: started", "ok   p TestA (0.5s)", "FAIL p TestB (0.2s)", "b_test.go:9: boom", "p: FAIL"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(strings.NewReader(`{"Action":"pass","Package":"p","Elapsed":1}`+"\n"), &out); code != 0 {
		t.Errorf("a passing package: exit %d\n%s", code, out.String())
	}
	if code := run(strings.NewReader("# p\nsyntax error\n"), &out); code != 1 {
		t.Errorf("a build failure: exit %d", code)
	}
}
