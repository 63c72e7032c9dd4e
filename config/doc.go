// Package config builds radoscp's one typed configuration struct from
// defaults, a config file, the environment and flags (in that order of
// precedence) with viper, and remembers where each value came from.
// Libraries never read viper: they take the struct.
package config
