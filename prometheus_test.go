package sdtkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testenv"
)

// fireC fires l:val(3) 50 times and l:val(100) 50 times: the median is
// in the bucket le=3, the largest value in le=127.
const fireC = `#include <sys/sdt.h>

__attribute__((noinline)) static void
val(long v)
{
	DTRACE_PROBE1(l, val, v);
}

int
main(void)
{
	for (int i = 0; i < 50; i++)
		val(3);
	for (int i = 0; i < 50; i++)
		val(100);
	return 0;
}
`

// TestPrometheus has a real Prometheus server scrape sdtattach --hist
// --listen every second, and checks that PromQL's increase() and
// histogram_quantile() over the hits of a fixture return what it fired.
func TestPrometheus(t *testing.T) {
	testenv.RequireUprobes(t)
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("requires prometheus (package prometheus)")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	if err := exec.Command("sh", "-c", "echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1").Run(); err != nil {
		t.Skip("requires sys/sdt.h (package systemtap-sdt-dev)")
	}
	bin := buildTools(t)
	dir := t.TempDir()
	fire := filepath.Join(dir, "fire")
	if err := os.WriteFile(fire+".c", []byte(fireC), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", fire, fire+".c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	exporter := "127.0.0.1:" + freePort(t)
	start(t, "sdtattach", filepath.Join(bin, "sdtattach"), "--hist", "arg0", "--listen", exporter, fire+":l:val")
	waitHTTP(t, ctx, "http://"+exporter+"/metrics")

	web := "127.0.0.1:" + freePort(t)
	config := filepath.Join(dir, "prometheus.yml")
	err = os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sdt
    static_configs:
      - targets: [%q]
`, exporter), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	start(t, "prometheus", prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	api := "http://" + web + "/api/v1/query"

	// Two samples of the series at 0, then the hits.
	count := `sdt_probe_value_count{job="sdt",probe="val"}`
	waitQuery(t, ctx, api, "count_over_time("+count+"[1m]) >= 2")
	if out, err := exec.Command(fire).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", fire, err, out)
	}
	waitQuery(t, ctx, api, count+" == 100")

	// increase() over a range from the last sample before the hits to
	// the first after: Prometheus extrapolates nothing when samples
	// sit on both ends of the range.
	var samples []struct {
		Values [][2]any `json:"values"`
	}
	query(t, ctx, api, url.Values{"query": {count + "[5m]"}}, &samples)
	if len(samples) != 1 {
		t.Fatalf("%s[5m]: %d series, want 1", count, len(samples))
	}
	var t0, t1 float64
	for _, s := range samples[0].Values {
		ts, _ := s[0].(float64)
		switch s[1] {
		case "0":
			t0 = ts
		case "100":
			if t1 == 0 {
				t1 = ts
			}
		}
	}
	if t0 == 0 || t1 == 0 {
		t.Fatalf("%s[5m] = %v: no sample at 0 before one at 100", count, samples[0].Values)
	}
	window := fmt.Sprintf("[%dms]", int64(math.Round((t1-t0)*1000)))
	at := strconv.FormatFloat(t1, 'f', 3, 64)
	for _, tt := range []struct{ expr, want string }{
		{"increase(" + count + window + ")", "100"},
		{`histogram_quantile(0.5, increase(sdt_probe_value_bucket{job="sdt"}` + window + "))", "3"},
		{`histogram_quantile(1, increase(sdt_probe_value_bucket{job="sdt"}` + window + "))", "127"},
		{`increase(sdt_probe_lost_total{job="sdt"}` + window + ")", "0"},
	} {
		var vec []struct {
			Value [2]any `json:"value"`
		}
		query(t, ctx, api, url.Values{"query": {tt.expr}, "time": {at}}, &vec)
		if len(vec) != 1 || vec[0].Value[1] != tt.want {
			t.Errorf("%s at %s = %v, want %s", tt.expr, at, vec, tt.want)
		}
	}
}

// freePort returns a TCP port of the loopback that nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// start starts a command that the test's end stops with SIGINT, and
// SIGKILL should it still run 10s later; it must exit 0.
func start(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			err = fmt.Errorf("killed after SIGINT and 10s: %v", <-done)
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, out.Bytes())
		} else if t.Failed() {
			t.Logf("%s:\n%s", name, out.Bytes())
		}
	})
}

// waitHTTP waits until url answers.
func waitHTTP(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", url, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// query runs a PromQL query through the HTTP API and decodes the result.
func query(t *testing.T, ctx context.Context, api string, params url.Values, result any) {
	t.Helper()
	if err := tryQuery(ctx, api, params, result); err != nil {
		t.Fatal(err)
	}
}

func tryQuery(ctx context.Context, api string, params url.Values, result any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", api+"?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s: %w", params.Get("query"), err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s: %s", params.Get("query"), body.Error)
	}
	return json.Unmarshal(body.Data.Result, result)
}

// waitQuery waits until a PromQL query returns something.
func waitQuery(t *testing.T, ctx context.Context, api, expr string) {
	t.Helper()
	for {
		var vec []json.RawMessage
		err := tryQuery(ctx, api, url.Values{"query": {expr}}, &vec)
		if err == nil && len(vec) > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: nothing before %v (%v)", expr, context.Cause(ctx), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
