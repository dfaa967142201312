// End-to-end tests of the generated Go SDK (sdks/go) over Thrift2 against a real gateway:
// by default a `redbase serve` (REDBASE_BIN, default target/debug/redbase) that TestMain
// starts on a free loopback port and stops with SIGTERM, requiring exit status 0; with
// REDBASE_SDK_TARGET=host:port an already running gateway such as Apache HBase's
// (tests/oracle/hbase.sh start → 127.0.0.1:19091). REDBASE_SDK_TRANSPORT=framed switches the
// transport; REDBASE_SDK_TABLE_PREFIX (Options.TablePrefix) names every table with a prefix, so
// the suite can share a cluster with other suites.
package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	sdk "redbase.example/sdks/go"
)

var (
	target  string
	options = &sdk.Options{}
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if os.Getenv("REDBASE_SDK_TRANSPORT") == "framed" {
		options.Transport = sdk.Framed
	}
	options.TablePrefix = os.Getenv("REDBASE_SDK_TABLE_PREFIX")
	if target = os.Getenv("REDBASE_SDK_TARGET"); target != "" {
		return m.Run()
	}
	stop, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs `redbase serve` with only the Thrift2 gateway and waits until it accepts.
func startServer() (stop func() error, err error) {
	bin := os.Getenv("REDBASE_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "..", "target", "debug", "redbase")
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("redbase binary not found at %s: build it or set REDBASE_BIN", bin)
	}
	dir, err := os.MkdirTemp("", "redbase-sdk-go-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	target = fmt.Sprintf("127.0.0.1:%d", port)
	logf, err := os.Create(filepath.Join(dir, "redbase.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--data-dir", filepath.Join(dir, "data"),
		"--thrift2-addr", target, "--gateways", "thrift2", "--advertised-host", "localhost",
		"--http-addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	log := func() string { b, _ := os.ReadFile(logf.Name()); return string(b) }
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", target, 500*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("redbase did not listen on %s:\n%s", target, log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() error {
		defer os.RemoveAll(dir)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("redbase exited with %v after SIGTERM:\n%s", err, log())
			}
			return nil
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			return fmt.Errorf("redbase did not exit after SIGTERM:\n%s", log())
		}
	}, nil
}

// table is what every generated table client offers for set-up.
type table interface {
	Exists(context.Context) (bool, error)
	Drop(context.Context) error
	Create(context.Context) error
}

// connect dials the gateway under test; the client is closed when the test ends.
func connect(t *testing.T) (context.Context, *sdk.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := sdk.Dial(ctx, target, options)
	if err != nil {
		t.Fatalf("dial %s: %v", target, err)
	}
	t.Cleanup(func() { c.Close() })
	return ctx, c
}

// fresh drops the table if it exists, creates it from its schema and drops it after the test.
func fresh[T table](t *testing.T, ctx context.Context, tb T) T {
	t.Helper()
	if ok, err := tb.Exists(ctx); err != nil {
		t.Fatal(err)
	} else if ok {
		must(t, tb.Drop(ctx))
	}
	must(t, tb.Create(ctx))
	t.Cleanup(func() {
		if err := tb.Drop(context.Background()); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return tb
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// failure is an error ok met, carried by a panic to the test's deferred catch.
type failure struct {
	err   error
	where string
}

// ok returns v, or stops the test on err (every test defers catch). It takes a call's two
// results directly: ok(table.Get(ctx, key)).
func ok[V any](v V, err error) V {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(failure{err, fmt.Sprintf("%s:%d", filepath.Base(file), line)})
	}
	return v
}

// catch turns ok's failure into a test failure.
func catch(t *testing.T) {
	if r := recover(); r != nil {
		f, isFailure := r.(failure)
		if !isFailure {
			panic(r)
		}
		t.Fatalf("%s: %v", f.where, f.err)
	}
}
