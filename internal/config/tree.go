package config

// FromTree is the config of a tree OpenClaw already resolved ($include
// merged, ${VAR} substituted): a gateway host's config as its config.get
// returns it. path names it in messages; nothing is read from disk, and
// paths in it (the other host's) are not expanded against this host's
// environment.
func FromTree(path string, root map[string]any) *Config {
	if root == nil {
		root = map[string]any{}
	}
	c := &Config{Path: path, Exists: true, Raw: root}
	c.decode(Env{})
	return c
}
