package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Kubernetes manifests in deploy/kubernetes, as far as they matter to
// radoscp.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Spec struct {
				RestartPolicy string         `yaml:"restartPolicy"`
				Containers    []k8sContainer `yaml:"containers"`
				Volumes       []struct {
					Name   string `yaml:"name"`
					Secret *struct {
						SecretName  string `yaml:"secretName"`
						DefaultMode *int   `yaml:"defaultMode"`
					} `yaml:"secret"`
					EmptyDir              *struct{} `yaml:"emptyDir"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name         string   `yaml:"name"`
	Command      []string `yaml:"command"`
	Args         []string `yaml:"args"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func readManifest(t *testing.T, file string) map[string]k8sObject {
	t.Helper()
	b, err := os.ReadFile(path.Join("..", "..", "deploy", "kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(false)
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out[o.Kind+"/"+o.Metadata.Name] = o
	}
}

// radoscpRun is what a manifest's container runs: radoscp's arguments,
// checked by cp's own flag parser, and where its files live.
type radoscpRun struct {
	shard      string
	src, dst   string
	conf, key  string
	textfile   string
	script     string
	volumeKind map[string]string // a file's path -> the kind of the volume it is on
}

func parseRun(t *testing.T, job k8sObject) radoscpRun {
	t.Helper()
	spec := job.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%s: %d containers", job.Metadata.Name, len(spec.Containers))
	}
	c := spec.Containers[0]
	// sh -c SCRIPT radoscp ARGS...: the script runs radoscp "$@".
	if len(c.Command) != 4 || c.Command[0] != "sh" || c.Command[1] != "-c" || !strings.Contains(c.Command[2], `radoscp "$@"`) {
		t.Fatalf("%s: command %q; want sh -c SCRIPT radoscp, the script running radoscp \"$@\"", job.Metadata.Name, c.Command)
	}
	if len(c.Args) == 0 || c.Args[0] != "cp" {
		t.Fatalf("%s: args %q; want a cp", job.Metadata.Name, c.Args)
	}
	cmd := newCpCommand()
	if err := cmd.ParseFlags(c.Args[1:]); err != nil {
		t.Fatalf("%s: radoscp %q: %v", job.Metadata.Name, c.Args, err)
	}
	get := func(name string) string { return cmd.Flags().Lookup(name).Value.String() }
	pos := cmd.Flags().Args()
	if len(pos) != 2 || !strings.HasPrefix(pos[0], "cephfs:") || !strings.HasPrefix(pos[1], "cephfs:") || get("recursive") != "true" {
		t.Fatalf("%s: radoscp %q: want cp -r cephfs:SRC cephfs:DST", job.Metadata.Name, c.Args)
	}
	r := radoscpRun{shard: get("shard"), src: pos[0], dst: pos[1], conf: get("conf"), key: get("keyring"),
		textfile: get("metrics-textfile"), script: c.Command[2], volumeKind: map[string]string{}}
	kind := map[string]string{}
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil:
			kind[v.Name] = "secret"
			if strings.Contains(v.Name, "keyring") && (v.Secret.DefaultMode == nil || *v.Secret.DefaultMode&0o077 != 0) {
				t.Errorf("%s: the keyring's Secret volume is readable by group or others (defaultMode)", job.Metadata.Name)
			}
		case v.EmptyDir != nil:
			kind[v.Name] = "emptyDir"
		case v.PersistentVolumeClaim != nil:
			kind[v.Name] = "pvc:" + v.PersistentVolumeClaim.ClaimName
		}
	}
	for _, p := range []string{r.conf, r.key, r.textfile, "/reports/x.json"} {
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/") {
				r.volumeKind[p] = kind[m.Name]
			}
		}
	}
	return r
}

// The deploy/kubernetes manifests stay valid: an Indexed Job whose
// completions, parallelism and --shard auto/N agree, each pod's shard
// taken from $JOB_COMPLETION_INDEX; ceph.conf and keyring read from
// Secret volumes mounted where the arguments say; metrics to a textfile
// on a volume of the pod's; --json lines to the shared claim; and a
// final-pass Job over the same SRC and DST with --shard finish/N that
// runs radoscp report. radoscp's arguments are parsed by cp's own flags.
func TestDeployKubernetesManifests(t *testing.T) {
	workers := readManifest(t, "workers-job.yaml")
	final := readManifest(t, "final-job.yaml")
	w, ok := workers["Job/radoscp-shards"]
	if !ok {
		t.Fatalf("workers-job.yaml has no Job radoscp-shards: %v", workers)
	}
	if _, ok := workers["PersistentVolumeClaim/radoscp-reports"]; !ok {
		t.Fatal("workers-job.yaml has no PersistentVolumeClaim radoscp-reports for the --json lines")
	}
	if w.Spec.CompletionMode != "Indexed" || w.Spec.Completions == nil || w.Spec.Parallelism == nil {
		t.Fatalf("workers: completionMode %q, completions %v, parallelism %v; want Indexed with both set", w.Spec.CompletionMode, w.Spec.Completions, w.Spec.Parallelism)
	}
	if w.Spec.Template.Spec.RestartPolicy != "Never" || w.Spec.BackoffLimitPerIndex == nil {
		t.Fatal("workers: want restartPolicy Never and backoffLimitPerIndex, so a failed shard is retried alone")
	}
	wr := parseRun(t, w)
	n, err := strconv.Atoi(strings.TrimPrefix(wr.shard, "auto/"))
	if !strings.HasPrefix(wr.shard, "auto/") || err != nil {
		t.Fatalf("workers: --shard %q; want auto/N", wr.shard)
	}
	if *w.Spec.Completions != n || *w.Spec.Parallelism != n {
		t.Fatalf("workers: completions %d, parallelism %d, --shard %s: all must be N", *w.Spec.Completions, *w.Spec.Parallelism, wr.shard)
	}
	for k := 0; k <= n; k++ {
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(k))
		s, err := (&shardFlags{spec: wr.shard}).parse(true)
		if k < n && (err != nil || s.K != k || s.N != n) {
			t.Fatalf("pod %d: --shard %s gives %+v, %v", k, wr.shard, s, err)
		}
		if k == n && err == nil {
			t.Fatalf("index %d of %d accepted", k, n)
		}
	}
	if !strings.Contains(wr.script, `/reports/shard-${JOB_COMPLETION_INDEX}.json`) {
		t.Errorf("workers: the script does not write shard-${JOB_COMPLETION_INDEX}.json for radoscp report:\n%s", wr.script)
	}

	f, ok := final["Job/radoscp-final"]
	if !ok {
		t.Fatalf("final-job.yaml has no Job radoscp-final: %v", final)
	}
	fr := parseRun(t, f)
	if fr.shard != "finish/"+strconv.Itoa(n) {
		t.Errorf("final pass: --shard %q; want finish/%d", fr.shard, n)
	}
	if fr.src != wr.src || fr.dst != wr.dst {
		t.Errorf("final pass copies %s to %s, the workers %s to %s", fr.src, fr.dst, wr.src, wr.dst)
	}
	if !strings.Contains(fr.script, "radoscp report /reports/shard-*.json /reports/final.json") {
		t.Errorf("final pass: the script does not run radoscp report over every run:\n%s", fr.script)
	}
	for _, r := range []radoscpRun{wr, fr} {
		if r.volumeKind[r.conf] != "secret" || r.volumeKind[r.key] != "secret" || path.Base(r.conf) != "ceph.conf" {
			t.Errorf("--conf %s (%s), --keyring %s (%s): want both on Secret volumes, the conf named ceph.conf (its name sets $cluster)",
				r.conf, r.volumeKind[r.conf], r.key, r.volumeKind[r.key])
		}
		if r.volumeKind[r.textfile] != "emptyDir" {
			t.Errorf("--metrics-textfile %s is on %q; want the pod's emptyDir, which the script pushes", r.textfile, r.volumeKind[r.textfile])
		}
		if r.volumeKind["/reports/x.json"] != "pvc:radoscp-reports" {
			t.Errorf("/reports is on %q; want the claim radoscp-reports", r.volumeKind["/reports/x.json"])
		}
	}
}
