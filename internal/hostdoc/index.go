package hostdoc

// IndexResult is the document of `sessions index --json`.
type IndexResult struct {
	StateDir string `json:"stateDir"`
	CacheDir string `json:"cacheDir"`
	// Transcripts is how many the state dir holds: what the index is
	// kept up to.
	Transcripts int `json:"transcripts"`
	// Disabled: $SESSIONS_NO_INDEX is set, so search scans and leaves the
	// index as it is.
	Disabled bool `json:"disabled"`
	// Index is the operator's index (null: there is none).
	Index *IndexStatus `json:"index"`
	// Masked are the indexes of masked text kept for agents' searches.
	Masked []IndexStatus `json:"masked"`
	// Updated is what --update or --rebuild did; Removed what --remove
	// removed.
	Updated *IndexUpdate `json:"updated,omitempty"`
	Removed []string     `json:"removed,omitempty"`
}

// IndexStatus is one index on disk.
type IndexStatus struct {
	Dir       string `json:"dir"`
	SizeBytes int64  `json:"sizeBytes"`
	// Built: brought up to date at least once (else empty so far).
	Built    bool `json:"built"`
	Sources  int  `json:"sources"`
	Messages int  `json:"messages"`
	// TextBytes are the transcript bytes it covers.
	TextBytes int64 `json:"textBytes"`
	UpdatedAt int64 `json:"updatedAt,omitempty"` // ms since the epoch
	// Changed: transcripts new, changed or gone since (the operator's
	// index only); Fresh when none.
	Changed *int  `json:"changed,omitempty"`
	Fresh   *bool `json:"fresh,omitempty"`
	// Corrupt says why it cannot be read: the next search rebuilds it.
	Corrupt string `json:"corrupt,omitempty"`
	// Updating: a process is updating it now — a build a search started
	// in the background, or another update (the operator's index only).
	Updating bool `json:"updating,omitempty"`
}

// IndexUpdate is what an update of the index did, in transcripts.
type IndexUpdate struct {
	Unchanged  int      `json:"unchanged"`
	Appended   int      `json:"appended"`
	Whole      int      `json:"indexedWhole"`
	Removed    int      `json:"removed"`
	Unreadable []string `json:"unreadable"`
	Segments   int      `json:"segments"`
}
