package config

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
)

// FromJSON is the config of a tree OpenClaw already resolved ($include
// merged, ${VAR} substituted): a gateway host's config as its config.get
// returns it. path names it; nothing is read from disk, and paths in it
// (the other host's) are not expanded against this host's environment.
//
// Both shapes are read: 2026.1.30's (agents.list, the default agent marked
// "default": true) and 2026.9's resolved one (agents.entries keyed by id,
// in the config's order, the default agent named by
// agents.defaults.systemAgent.agentId), which is turned into the first.
func FromJSON(path string, data []byte) (*Config, error) {
	root := map[string]any{}
	if len(data) > 0 && string(data) != "null" {
		if err := json.Unmarshal(data, &root); err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if agents := obj(root["agents"]); agents != nil {
		if _, hasList := agents["list"]; !hasList {
			if entries := gjson.GetBytes(data, "agents.entries"); entries.IsObject() {
				def := str(obj(obj(agents["defaults"])["systemAgent"])["agentId"])
				var list []any
				entries.ForEach(func(k, v gjson.Result) bool {
					e := map[string]any{}
					if m, ok := v.Value().(map[string]any); ok {
						for kk, vv := range m {
							e[kk] = vv
						}
					}
					e["id"] = k.String()
					if def != "" && NormalizeAgentID(k.String()) == NormalizeAgentID(def) {
						e["default"] = true
					}
					list = append(list, e)
					return true
				})
				agents["list"] = list
			}
		}
	}
	c := &Config{Path: path, Exists: true, Raw: root}
	c.decode(Env{})
	return c, nil
}
