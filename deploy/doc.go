// Package deploy holds the files that run radoscp as a scheduled job: the
// nightly subvolume clone script, its systemd service and timer, and a
// Kubernetes CronJob. It has no code; its tests check that the files parse
// and say what the README says they do.
package deploy
