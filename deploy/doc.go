// Package deploy holds the files that run radoscp as a scheduled job: the
// nightly subvolume clone script, its systemd service and timer, and a
// Kubernetes CronJob; and the Indexed Job and final-pass Job of a sharded
// copy (kubernetes/workers-job.yaml, final-job.yaml, which
// cmd/radoscp/deploy_test.go checks with cp's own flags). It has no code;
// its tests check that the files parse and say what the README says they
// do.
package deploy
