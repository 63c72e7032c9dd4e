package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// unit reads a systemd unit file (or an environment file, which has no
// sections) as sections of key=value lines, failing on anything else
// (comments and blank lines aside).
func unit(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{"": {}} // "": lines before any section (an environment file)
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			out[section] = map[string]string{}
		case strings.Contains(line, "=") && !strings.HasPrefix(line, "="):
			k, v, _ := strings.Cut(line, "=")
			out[section][k] = v
		default:
			t.Fatalf("%s:%d: not a section or key=value: %q", path, n, line)
		}
	}
	return out
}

// The service runs the script once per start with the settings file, and
// stops it with an interrupt; the timer starts it nightly and catches up
// after downtime. With systemd-analyze on the machine, the units also
// verify (pointed at the script in this directory).
func TestSystemdUnits(t *testing.T) {
	svc := unit(t, "systemd/radoscp-nightly-clone.service")
	s := svc["Service"]
	if s["Type"] != "oneshot" || s["ExecStart"] != "/usr/local/bin/radoscp-nightly-clone" ||
		s["EnvironmentFile"] != "/etc/radoscp/nightly-clone.env" || s["KillSignal"] != "SIGINT" {
		t.Fatalf("[Service] %v", s)
	}
	tm := unit(t, "systemd/radoscp-nightly-clone.timer")
	if tm["Timer"]["OnCalendar"] == "" || tm["Timer"]["Persistent"] != "true" || tm["Install"]["WantedBy"] != "timers.target" {
		t.Fatalf("timer %v", tm)
	}
	env := unit(t, "systemd/radoscp-nightly-clone.env")[""]
	if env["RADOSCP_VOLUME"] == "" || env["RADOSCP_SUBVOLUME"] == "" || env["RADOSCP_MAX_RATE"] == "" || env["RADOSCP_METRICS_TEXTFILE"] == "" {
		t.Fatalf("settings %v: want the volume, subvolume, rate and textfile", env)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze not installed: units parsed, not verified")
		return
	}
	dir := t.TempDir()
	script, err := filepath.Abs("radoscp-nightly-clone")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("systemd/radoscp-nightly-clone.service")
	if err != nil {
		t.Fatal(err)
	}
	// Where it would be installed, for systemd-analyze: the script and
	// settings from this directory, no man page.
	fixed := strings.NewReplacer("/usr/local/bin/radoscp-nightly-clone", script,
		"/etc/radoscp/nightly-clone.env", filepath.Join(dir, "nightly-clone.env"),
		"Documentation=man:radoscp-subvolume-clone(1)\n", "").Replace(string(text))
	for name, body := range map[string]string{"radoscp-nightly-clone.service": fixed, "nightly-clone.env": "RADOSCP_VOLUME=cephfs\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	timer, _ := os.ReadFile("systemd/radoscp-nightly-clone.timer")
	if err := os.WriteFile(filepath.Join(dir, "radoscp-nightly-clone.timer"), timer, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", filepath.Join(dir, "radoscp-nightly-clone.timer"),
		filepath.Join(dir, "radoscp-nightly-clone.service")).CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The CronJob is a batch/v1 CronJob running the script once a night, one
// at a time, with the client's secret and the node's textfile directory.
func TestKubernetesCronJob(t *testing.T) {
	b, err := os.ReadFile("kubernetes/radoscp-nightly-clone.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cj struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Spec       struct {
			Schedule          string
			ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
			JobTemplate       struct {
				Spec struct {
					Template struct {
						Spec struct {
							RestartPolicy string `yaml:"restartPolicy"`
							Containers    []struct {
								Command []string
								Env     []struct{ Name, Value string }
								Mounts  []struct {
									Name      string
									MountPath string `yaml:"mountPath"`
								} `yaml:"volumeMounts"`
							}
							Volumes []map[string]any
						}
					}
				}
			} `yaml:"jobTemplate"`
		}
	}
	if err := yaml.Unmarshal(b, &cj); err != nil {
		t.Fatal(err)
	}
	pod := cj.Spec.JobTemplate.Spec.Template.Spec
	if cj.APIVersion != "batch/v1" || cj.Kind != "CronJob" || len(strings.Fields(cj.Spec.Schedule)) != 5 ||
		cj.Spec.ConcurrencyPolicy != "Forbid" || pod.RestartPolicy != "Never" || len(pod.Containers) != 1 {
		t.Fatalf("CronJob %+v", cj)
	}
	c := pod.Containers[0]
	if len(c.Command) != 1 || c.Command[0] != "/usr/local/bin/radoscp-nightly-clone" {
		t.Fatalf("command %v", c.Command)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	for _, k := range []string{"RADOSCP_VOLUME", "RADOSCP_SUBVOLUME", "RADOSCP_MAX_RATE", "RADOSCP_METRICS_TEXTFILE", "CEPH_CONF", "RADOSCP_KEYRING"} {
		if env[k] == "" {
			t.Errorf("env %s not set", k)
		}
	}
	mounted := map[string]string{}
	for _, m := range c.Mounts {
		mounted[m.Name] = m.MountPath
	}
	if !strings.HasPrefix(env["RADOSCP_METRICS_TEXTFILE"], mounted["textfile"]+"/") || !strings.HasPrefix(env["CEPH_CONF"], mounted["ceph"]+"/") {
		t.Fatalf("the textfile (%s) and conf (%s) are not under their mounts %v", env["RADOSCP_METRICS_TEXTFILE"], env["CEPH_CONF"], mounted)
	}
	if len(pod.Volumes) != 2 {
		t.Fatalf("volumes %v", pod.Volumes)
	}
}

// The script is valid POSIX sh and refuses to run without its settings.
func TestScriptNeedsSettings(t *testing.T) {
	if out, err := exec.Command("sh", "-n", "radoscp-nightly-clone").CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v\n%s", err, out)
	}
	cmd := exec.Command("sh", "radoscp-nightly-clone")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "RADOSCP_VOLUME") {
		t.Fatalf("without settings: %v, %s; want a failure naming RADOSCP_VOLUME", err, out)
	}
}
