package doctor

import "hash/crc32"

// castagnoli is the CRC-32C table of the scan cache's envelope
// (internal/cachefile's), with which the fuzz test seals the payloads it
// makes up.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)
