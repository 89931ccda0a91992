/**
 * Each stage of the course as a short Flink 2.3.0 DataStream job, for reading: what the learner
 * built by hand, written the way a Flink user writes it.
 *
 * <p>Every {@code StageNN…} class has a static {@code run} method that builds the job on a given
 * {@code StreamExecutionEnvironment} from a finite list of events and returns what it collected,
 * and a {@code main} that reads events as JSON lines on standard input and writes what the job
 * emitted as JSON lines on standard output ({@link dev.flkbyo.flink.jobs.JobMain} says how). The
 * parts several jobs share are here too: the watermark strategy ({@link
 * dev.flkbyo.flink.jobs.Emit}), dedup by ID ({@link dev.flkbyo.flink.jobs.DedupById}), the window
 * aggregate ({@link dev.flkbyo.flink.jobs.CountAndSum}, {@link dev.flkbyo.flink.jobs.WindowResult})
 * and the collection of a job's streams ({@link dev.flkbyo.flink.jobs.Collect}).
 *
 * <p>flink/jobs.md lists the jobs, and docs/PARITY.md says where the course and Flink differ.
 */
package dev.flkbyo.flink.jobs;
