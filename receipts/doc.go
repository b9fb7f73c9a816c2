// Package receipts issues, stores and verifies signed receipts: one record
// per successful tool call, hash-chained and signed with Ed25519, appended
// durably to JSONL segments so that anyone holding the public key can check
// a whole log offline.
//
// The smallest use:
//
//	s, err := receipts.Open(receipts.Options{Dir: dataDir + "/receipts"})
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	r, err := s.Issue(ctx, receipts.Entry{
//		Tool: "file_read", Attribution: "builtin.file_read",
//		Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto,
//		Args: args, Result: text, Duration: took,
//	})
//	// r.Token() is "tr1.<seq>.<sig>"; later, offline:
//	report := receipts.Verify(dataDir+"/receipts", nil)
//	fmt.Print(report)
//
// # Notes
//
// Issue returns only after the receipt is written and fsynced. Concurrent
// calls share one write and one fsync (group commit).
//
// Arguments and results are hashed, not stored: args_sha256 covers the RFC
// 8785 canonical JSON of the arguments and result_sha256 the result text.
// With [Options.StoreArguments] the arguments are stored too, with the value
// of every secret-looking key replaced by [Redacted] (the hash still covers
// the original arguments).
//
// The byte format (fields, canonicalization, what is hashed and signed,
// chaining, segments, key rotation, torn tails) is specified in FORMAT.md
// next to this file, with a worked example, so that verifiers can be
// written in other languages.
//
// Reading ([List], [Find], [Export], [Verify]) needs no lock and no private
// key: copy the segments and receipt-key.pub anywhere and verify there.
package receipts
