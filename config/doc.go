// Package config builds radoscp's one typed configuration struct from
// defaults, a config file, the environment and flags (in that order of
// precedence) with viper, and remembers where each value came from.
// Libraries never read viper: they take the struct.
//
// Every setting has one name, used three ways: the flag (--object-size),
// the key in the YAML file (object-size: 4M) and, prefixed and upper cased,
// the variable (RADOSCP_OBJECT_SIZE). The file is --config FILE, else
// RADOSCP_CONFIG, else $XDG_CONFIG_HOME/radoscp/config.yaml, else
// /etc/radoscp/config.yaml; only a file named explicitly must exist. A flag
// counts only when given on the command line, and an empty variable counts
// as unset. Sizes accept ParseBytes's suffixes, powers of 1024, wherever
// they are given.
//
// Mistakes fail loudly: an unknown key in the file, a value that does not
// parse or is out of range. Each error names the key, the value, where it
// came from and what was expected.
package config
