package metrics_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/metrics"
)

// An Exporter serves what an attach.Aggregator counts: here, records
// made by hand stand for its Collect. Each scrape adds the interval
// since the one before.
func Example() {
	n := uint64(0)
	e := metrics.New(&metrics.Options{
		Collect: func(time.Time) ([]aggregate.Record, error) {
			n += 5
			return []aggregate.Record{{Provider: "shop", Name: "order", File: "/usr/bin/shop", Count: n}}, nil
		},
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	defer srv.Close()

	for range 2 {
		resp, err := http.Get(srv.URL)
		if err != nil {
			panic(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			panic(err)
		}
		for line := range strings.Lines(string(body)) {
			if strings.HasPrefix(line, metrics.HitsTotal) {
				fmt.Print(line)
			}
		}
	}
	// Output:
	// sdt_probe_hits_total{binary="/usr/bin/shop",probe="order",provider="shop"} 5
	// sdt_probe_hits_total{binary="/usr/bin/shop",probe="order",provider="shop"} 15
}
