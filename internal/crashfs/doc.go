// Package crashfs tells what a program's file system calls promise, from a
// trace of them: what a reader of its files could see at any moment, and
// what a power loss at any moment would leave.
//
// A test runs the program, a child process, under strace (Record), which
// logs its file system calls; Parse turns the log into the operations the
// program did under one directory (Trace.Ops), in order. Then:
//
//   - ReplayLive replays them into a mirror directory one at a time, and
//     every write one page at a time, since a concurrent reader of a file
//     may see a write half done: a test reads the mirror after each and
//     sees what a reader polling the program's output could have seen.
//   - PowerLoss builds what a power loss right before any operation leaves:
//     only what was fsynced. A file's data is durable as of its last fsync
//     (or write through an O_SYNC descriptor); a new name, a rename or a
//     removal once the folder holding the name is fsynced after it (for a
//     rename, the folder of the new name); sync makes everything durable.
//     This is the least a file system promises (POSIX, and Linux's fsync(2):
//     "Calling fsync() does not necessarily ensure that the entry in the
//     directory containing the file has also reached disk"), so a program
//     that survives it survives any power loss.
//
// The checks CheckReaders and CheckPowerLoss drive both for a job that
// publishes output per checkpoint (stage 05's job, and stage 08's), given
// as a Job: how to run it, how many checkpoints it takes, and what a reader
// sees. The job's child marks its protocol steps with MarkStep, which shows
// in the trace among the file operations.
//
// What a trace cannot show: writes through memory maps, files changed by
// another process, and the contents of a file brought into the directory
// from outside it (Parse reports that as an error). Verify compares the
// end of a trace with the directory the run left, which catches the first
// two. sync_file_range does not count as a sync: it flushes no metadata.
package crashfs
