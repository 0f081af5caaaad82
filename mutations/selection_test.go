package mutations

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

func TestRulesInName(t *testing.T) {
	cases := map[string][]string{
		"P10Retry":                 {"P10"},
		"P1_SessionKept":           {"P1"},
		"P3P4_TimeoutsAndMessages": {"P3", "P4"},
		"StatusP16Parallel":        {"P16"},
		"Config_C1":                {"C1"},
		"HTTP1Server":              nil,
		"P18":                      nil,
		"C9":                       nil,
		"P0":                       nil,
		"ReconnectOnce":            nil,
	}
	for name, want := range cases {
		if got := rulesInName(name); !reflect.DeepEqual(got, want) {
			t.Errorf("rulesInName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRuleTests(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "testing"

func TestP10_Retry(t *testing.T) {}

// TestStatus checks P16.
func TestStatus(t *testing.T) {}

func TestCalls(t *testing.T) {
	// the P9 text
	t.Run("C5 unknown", func(t *testing.T) {})
}

func TestHTTP1(t *testing.T) {}

func Testable(t *testing.T) {} // not a test: P2

func helperP2(t *testing.T) {}

func TestMain(m *testing.M) {}
`
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ruleTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"P10": {"TestP10_Retry"},
		"P16": {"TestStatus"},
		"P9":  {"TestCalls"},
		"C5":  {"TestCalls"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ruleTests = %v, want %v", got, want)
	}
	f := runFilter([]string{"TestA", "TestB.x"})
	re := regexp.MustCompile(f)
	if !re.MatchString("TestA") || !re.MatchString("TestB.x") || re.MatchString("TestAB") || re.MatchString("TestBxx") {
		t.Errorf("filter %q", f)
	}
	if runFilter(nil) != "" {
		t.Error("an empty list must give no filter")
	}
}
