package mcpserver

// The output schemas (built when the MCP server registers its tools, not
// by every process at start): the documents the CLI prints with --json, as JSON
// Schema. They name every top-level field with its type; the rows inside
// (sessions, messages, hits) are objects whose fields the CLI's help
// describes.

func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func typ(t any, desc string) map[string]any {
	s := map[string]any{"type": t}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func withDesc(s map[string]any, desc string) map[string]any {
	c := map[string]any{"description": desc}
	for k, v := range s {
		c[k] = v
	}
	return c
}

func arrayOf(items map[string]any, desc string) map[string]any {
	s := typ("array", desc)
	s["items"] = items
	return s
}

func anyObject() map[string]any { return map[string]any{"type": "object"} }
func str() map[string]any       { return map[string]any{"type": "string"} }
func hostErrs() map[string]any {
	return arrayOf(anyObject(), "over a fleet (--context all): the hosts that failed, each with its context and error")
}

func listOutput() map[string]any {
	return obj(map[string]any{
		"count":        typ("integer", "sessions returned"),
		"totalCount":   typ("integer", "sessions matching before the limit"),
		"limitApplied": typ([]string{"integer", "null"}, "the limit in force (null: none)"),
		"hasMore":      typ("boolean", "sessions were left out by the limit"),
		"sessions":     arrayOf(anyObject(), "newest first: key, kind, channel, agentId, updatedAt, sessionId, label, model, tokens, transcriptPath, messages (with messageLimit) …"),
		"errors":       hostErrs(),
	}, "count", "totalCount", "hasMore", "sessions")
}

func historyOutput() map[string]any {
	return obj(map[string]any{
		"sessionKey":       str(),
		"sessionId":        str(),
		"messages":         arrayOf(anyObject(), "oldest first, as OpenClaw's sessions_history returns them"),
		"truncated":        typ("boolean", "the page is not whole: the 80 KiB cap dropped the oldest messages (they are before nextCursor) or a message's text was cut (contentTruncated)"),
		"dropped":          typ("integer", "how many the cap dropped"),
		"droppedMessages":  typ("boolean", "the 80 KiB cap dropped messages, or the one left was too large and stands as a placeholder"),
		"contentTruncated": typ("boolean", "a text longer than 4000 characters was cut (…(truncated)…), or a message's details, usage or cost were left out"),
		"contentRedacted":  typ("boolean", "credentials in the page's texts were masked"),
		"redacted":         typ("boolean", "the same as contentRedacted"),
		"bytes":            typ("integer", "the size of messages"),
		"hasMore":          typ("boolean", "older messages exist: pass nextCursor as before"),
		"nextCursor":       typ("string", "the cursor of the page before this one"),
		"windowFull":       typ("boolean", "over a gateway: older messages are out of its 1000-message window"),
		"aroundIndex":      typ("integer", "with around: the index in messages of the message asked for"),
		"hasNewer":         typ("boolean", "with around: newer messages exist after this page"),
		"prevCursor":       typ("string", "with around: pass it as before for the page of newer messages (absent when those reach the newest: call without before)"),
	}, "sessionKey", "messages", "truncated", "bytes", "hasMore")
}

func runOutput() map[string]any {
	return obj(map[string]any{
		"runId":      typ("string", "the run's id (sessions_wait takes it)"),
		"status":     typ("string", "accepted (not waited for) or ok"),
		"reply":      typ("string", "the target's reply"),
		"sessionKey": str(),
		"delivery":   typ("object", "the announce's delivery: status (pending, skipped, recorded, delivered, failed), mode, error"),
		"error":      str(),
	}, "runId", "status")
}

func spawnOutput() map[string]any {
	return obj(map[string]any{
		"status":          typ("string", "accepted"),
		"childSessionKey": typ("string", "the sub-agent's session"),
		"runId":           typ("string", "the run's id (sessions_wait takes it)"),
		"modelApplied":    typ("boolean", "the model asked for was applied"),
		"warning":         str(),
	}, "status", "childSessionKey", "runId")
}

func searchOutput() map[string]any {
	return obj(map[string]any{
		"count":      typ("integer", "hits returned"),
		"totalCount": typ("integer", "hits found before the limit"),
		"hasMore":    typ("boolean", "hits were left out by the limit, or the search stopped at its budget (partial)"),
		"partial":    typ("boolean", "the search stopped at the work budget of a masked search: hits and totalCount are those found so far"),
		"hits":       arrayOf(anyObject(), "newest first: key, kind, agentId, label, sessionId, id, role, timestamp, snippet, match, source, archived, context"),
	}, "count", "totalCount", "hasMore", "hits")
}

func showOutput() map[string]any {
	return obj(map[string]any{
		"key":        typ("string", "the session's key"),
		"storeKey":   str(),
		"agentId":    str(),
		"kind":       str(),
		"channel":    str(),
		"sessionId":  str(),
		"label":      str(),
		"era":        typ("string", "json, sqlite or gateway"),
		"store":      str(),
		"model":      anyObject(),
		"tokens":     anyObject(),
		"transcript": typ("object", "path, exists, bytes, messages, firstMessageAt, lastMessageAt"),
		"lineage":    typ("object", "spawnedBy, children"),
		"busy":       typ("boolean", "a run holds the session's transcript lock"),
		"lock":       typ([]string{"object", "null"}, "the lock's holder"),
		"runs":       arrayOf(anyObject(), "the session's runs"),
		"entry":      withDesc(anyObject(), "the entry as stored"),
		"sessions":   arrayOf(anyObject(), "over a fleet: the session as each host has it"),
		"count":      typ("integer", "over a fleet: how many hosts have it"),
		"errors":     hostErrs(),
	})
}

func usageOutput() map[string]any {
	return obj(map[string]any{
		"schema_version": typ("integer", ""),
		"by":             arrayOf(str(), "the dimensions rows are rolled up by"),
		"since":          str(),
		"until":          str(),
		"count":          typ("integer", "rows"),
		"rows":           arrayOf(anyObject(), "each: its dimension values, then messages, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, totalTokens, costUsd, costMicroUsd …"),
		"totals":         anyObject(),
		"files":          typ("object", "total, read, cached"),
	}, "by", "count", "rows", "totals")
}

func doctorOutput() map[string]any {
	return obj(map[string]any{
		"status":   typ("string", "ok (nothing to act on) or error"),
		"error":    str(),
		"stateDir": str(),
		"fix":      typ("boolean", "always false here: this tool only reports"),
		"fixed":    typ("integer", ""),
		"counts":   typ("object", "error, warning, info"),
		"findings": arrayOf(anyObject(), "severity, check, sessionKey, path, message, fix (the command that repairs it)"),
	}, "status", "stateDir", "findings")
}

func patchOutput() map[string]any {
	return obj(map[string]any{
		"ok":       typ("boolean", ""),
		"key":      str(),
		"path":     typ("string", "the store written"),
		"entry":    withDesc(anyObject(), "the entry as written"),
		"warnings": arrayOf(str(), ""),
	}, "ok", "key", "entry")
}

func runsOutput() map[string]any {
	return obj(map[string]any{
		"count":        typ("integer", "runs returned (with tree: the spawn runs in the tree)"),
		"totalCount":   typ("integer", "runs matching before the limit"),
		"limitApplied": typ([]string{"integer", "null"}, "the limit in force (null: none)"),
		"hasMore":      typ("boolean", "runs were left out by the limit"),
		"runs":         arrayOf(anyObject(), "newest first, each as recorded plus source: runId, kind, status, target, requester, spawn, reply, error, createdAt …"),
		"tree":         arrayOf(anyObject(), "with tree: each requester (sessionKey) with its children (sessionKey, runId, label, status, outcome, createdAt, source, children)"),
		"errors":       hostErrs(),
	}, "count", "totalCount", "hasMore")
}

func lifecycleOutput() map[string]any {
	return obj(map[string]any{
		"action":   typ("string", "delete, reset or archive"),
		"dryRun":   typ("boolean", "nothing was written"),
		"count":    typ("integer", "sessions acted on"),
		"bytes":    typ("integer", "the size of the transcripts moved aside"),
		"sessions": arrayOf(anyObject(), "key, agentId, sessionId, newSessionId (reset), updatedAt, kind, transcripts (their new names), bytes, kept, archivedAt"),
		"skipped":  arrayOf(anyObject(), "key, reason"),
	}, "action", "dryRun", "count", "sessions")
}
