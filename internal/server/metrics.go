package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
)

// metrics are the server's Prometheus series, in a registry of its own
// (never the global one, so that two servers in one process, as in tests,
// do not collide).
type metrics struct {
	latency        prometheus.Histogram
	decisions      *prometheus.CounterVec
	errors         *prometheus.CounterVec
	refused        *prometheus.CounterVec
	inflight       prometheus.Gauge
	reloads        prometheus.Counter
	reloadFailures prometheus.Counter
	reloadSeconds  prometheus.Histogram
	units          prometheus.Gauge
	loadedAt       prometheus.Gauge
}

func newMetrics() (*prometheus.Registry, *metrics) {
	m := &metrics{
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rlmc_compile_duration_seconds", Help: "Time to answer POST /v1/compile, errors included.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlmc_compiles_total", Help: "Compiles answered, by decision (route, no_route, ambiguous, or error).",
		}, []string{"decision"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlmc_compile_errors_total", Help: "Compiles answered with an error, by error code.",
		}, []string{"code"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlmc_requests_refused_total", Help: "Requests refused before any route saw them, by error code (unauthorized, forbidden_host, cross_origin): a browser page probing the server, or a client without its token.",
		}, []string{"code"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlmc_compiles_in_flight", Help: "Compiles running now.",
		}),
		reloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlmc_catalog_reloads_total", Help: "Catalogs swapped in after a change or a forced reload (the first load not counted).",
		}),
		reloadFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlmc_catalog_reload_failures_total", Help: "Reloads that failed; the previous catalog kept serving.",
		}),
		reloadSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rlmc_catalog_reload_duration_seconds", Help: "Time to load a catalog after a change, retries included.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		units: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlmc_catalog_units", Help: "Units in the catalog serving now, invalid and shadowed ones included.",
		}),
		loadedAt: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlmc_catalog_loaded_timestamp_seconds", Help: "When the catalog serving now was swapped in, in Unix seconds.",
		}),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.latency, m.decisions, m.errors, m.refused, m.inflight, m.reloads, m.reloadFailures, m.reloadSeconds, m.units, m.loadedAt,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// The decisions are known in advance: each series exists from the
	// start, at zero, so a rate over it never begins with a gap.
	for _, d := range []compiler.Decision{compiler.DecisionRoute, compiler.DecisionNoRoute, compiler.DecisionAmbiguous, compiler.DecisionError} {
		m.decisions.WithLabelValues(string(d))
	}
	for _, code := range []compiler.ErrorCode{ErrUnauthorized, httpsafe.CodeForbiddenHost, httpsafe.CodeCrossOrigin} {
		m.refused.WithLabelValues(string(code))
	}
	return reg, m
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})
}
