package main

import (
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/metrics"
)

// A scheduled job is alerted on by its textfile: when the last run
// started and ended, whether it succeeded, its exit code and what it
// copied. The textfile is written at the end of every run that has one,
// failures before any copy included.

// job is one run of radoscp, for the textfile.
type job struct {
	start    time.Time
	textfile string   // --metrics-textfile, once the configuration is loaded
	session  *session // the run's copy metrics, once connected
}

var (
	jobStart   = prometheus.NewDesc("radoscp_job_start_timestamp_seconds", "When the last run started, in Unix seconds.", nil, nil)
	jobEnd     = prometheus.NewDesc("radoscp_job_end_timestamp_seconds", "When the last run ended, in Unix seconds.", nil, nil)
	jobSuccess = prometheus.NewDesc("radoscp_job_success", "1 if the last run copied everything (exit 0), else 0.", nil, nil)
	jobExit    = prometheus.NewDesc("radoscp_job_exit_code", "The exit code of the last run.", nil, nil)
	jobBytes   = prometheus.NewDesc("radoscp_job_copied_bytes", "Bytes the last run copied (all copies of a --batch).", nil, nil)
	jobFiles   = prometheus.NewDesc("radoscp_job_copied_files", "CephFS files the last run copied.", nil, nil)
)

// jobCollector is a finished run's outcome.
type jobCollector struct {
	start, end   time.Time
	code         int
	bytes, files uint64
}

func (c jobCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobStart, jobEnd, jobSuccess, jobExit, jobBytes, jobFiles} {
		ch <- d
	}
}

func (c jobCollector) Collect(ch chan<- prometheus.Metric) {
	success := 0.0
	if c.code == exitOK {
		success = 1
	}
	type value struct {
		d *prometheus.Desc
		v float64
	}
	vs := []value{{jobStart, float64(c.start.UnixNano()) / 1e9}, {jobBytes, float64(c.bytes)}, {jobFiles, float64(c.files)}}
	if c.code >= 0 { // ended
		vs = append(vs, value{jobEnd, float64(c.end.UnixNano()) / 1e9}, value{jobSuccess, success}, value{jobExit, float64(c.code)})
	}
	for _, m := range vs {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.GaugeValue, m.v)
	}
}

// finish writes the textfile of the run that ends with code, if it has
// one.
func (j *job) finish(errw io.Writer, code int) {
	if j.textfile == "" {
		return
	}
	m := metrics.New()
	c := jobCollector{start: j.start, end: time.Now(), code: code}
	if j.session != nil {
		m = j.session.metrics
		if p := j.session.prog; p != nil {
			c.bytes, c.files = p.runTotals()
		}
	}
	if err := m.WriteTextfile(j.textfile, c); err != nil {
		report(errw, err)
	}
}

// finishCopy writes the textfile after one copy of a run still going:
// its outcome is not known yet, so the end, success and exit code are
// left out until main writes them.
func (j *job) finishCopy(s *session) {
	c := jobCollector{start: j.start, code: -1}
	if s.prog != nil {
		c.bytes, c.files = s.prog.runTotals()
	}
	if err := s.metrics.WriteTextfile(s.cfg.MetricsTextfile, c); err != nil {
		s.log.Error("cannot write the metrics textfile", "path", s.cfg.MetricsTextfile, "err", err)
	}
}

// configured takes what the whole run needs from the loaded
// configuration: --json, and the textfile, whose directory is checked
// before anything is written.
func (inv *invocation) configured(cfg config.Config) error {
	inv.json = cfg.JSON
	if err := checkTextfileDir(cfg.MetricsTextfile); err != nil {
		return err
	}
	inv.job.textfile = cfg.MetricsTextfile
	return nil
}
