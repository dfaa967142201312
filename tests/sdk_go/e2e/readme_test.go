package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeDial is the address the generated README dials: redbase's Thrift2 port.
const readmeDial = `"127.0.0.1:9091"`

// quickStart is the first go code block under the README's "## Quick start" heading.
func quickStart(t *testing.T, readme string) string {
	t.Helper()
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(text), "\n## Quick start\n")
	if at < 0 {
		t.Fatalf("%s: no Quick start section", readme)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(string(text[at:]))
	if m == nil {
		t.Fatalf("%s: no go block under Quick start", readme)
	}
	return m[1]
}

// TestTheReadmeQuickStartBuildsAndRuns takes the quick start from the generated
// sdks/go/README.md (not a copy), checks it is gofmt-clean and dials redbase's Thrift2 port, and
// runs it as a program of its own module (the SDK by a replace directive) against the gateway
// under test: only the address is changed.
func TestTheReadmeQuickStartBuildsAndRuns(t *testing.T) {
	sdkDir, err := filepath.Abs(filepath.Join("..", "..", "..", "sdks", "go"))
	if err != nil {
		t.Fatal(err)
	}
	code := quickStart(t, filepath.Join(sdkDir, "README.md"))
	if strings.Count(code, readmeDial) != 1 {
		t.Fatalf("the quick start does not dial %s once:\n%s", readmeDial, code)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", code)
	if out, err := exec.Command("gofmt", "-l", filepath.Join(dir, "main.go")).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("the README's quick start is not gofmt-clean: %s %v", out, err)
	}
	write("main.go", strings.Replace(code, readmeDial, `"`+target+`"`, 1))
	write("go.mod", "module readmequickstart\n\ngo 1.21\n\nrequire (\n\tgithub.com/apache/thrift v0.17.0\n"+
		"\tredbase.example/sdks/go v0.0.0\n)\n\nreplace redbase.example/sdks/go => "+sdkDir+"\n")
	sum, err := os.ReadFile(filepath.Join(sdkDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	// Offline: thrift comes from the module cache the suite itself filled.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's quick start: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "example") {
		t.Errorf("the quick start printed no row:\n%s", out)
	}
}
