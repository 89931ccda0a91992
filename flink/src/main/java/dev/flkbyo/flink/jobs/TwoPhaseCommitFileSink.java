package dev.flkbyo.flink.jobs;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flkbyo.flink.Result;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A two-phase-commit file sink in Flink's Sink V2 API, written small for reading: the course's
 * TwoPhaseCommitSink. Flink's FileSink does the same with rolling policies, buckets and recoverable
 * streams; this one keeps only the protocol.
 *
 * <p>A transaction is one file. The {@link Writer} writes results into {@code dir/.pending/NAME}
 * (the course's {@code Write}); at each checkpoint barrier Flink calls {@code prepareCommit}, which
 * flushes and fsyncs the file and hands its name on as the committable (the course's {@code
 * PreCommit}): durable, invisible. Flink stores the committables in the checkpoint, and once the
 * checkpoint completes its {@link FileCommitter} publishes each with an atomic rename to {@code
 * dir/NAME} (the course's {@code Commit}). After a failure, Flink restores the committables of the
 * last completed checkpoint and commits them again: a commit finds the file already renamed and
 * says so ({@code signalAlreadyCommitted}): commits are idempotent. The transaction that was open
 * is never committed: its file stays in {@code .pending}, invisible to {@link #readCommitted}, and
 * the replayed source writes its results again into a new one. (FileSink also deletes such files;
 * this sink leaves them.)
 *
 * <p>File names are {@code part-SUBTASK-ATTEMPT-SEQ.jsonl}, one JSON Result a line: unique across
 * restarts (the attempt number grows), and in write order per subtask.
 */
public final class TwoPhaseCommitFileSink implements Sink<Result>, SupportsCommitter<String> {
  private final String dir;

  /** A sink that commits its files into dir. */
  public TwoPhaseCommitFileSink(Path dir) {
    this.dir = dir.toString();
  }

  @Override
  public Writer createWriter(WriterInitContext ctx) throws IOException {
    return new Writer(Path.of(dir), ctx.getTaskInfo().getIndexOfThisSubtask(), ctx.getTaskInfo().getAttemptNumber());
  }

  @Override
  public Committer<String> createCommitter(CommitterInitContext ctx) {
    return new FileCommitter(Path.of(dir));
  }

  @Override
  public SimpleVersionedSerializer<String> getCommittableSerializer() {
    return new NameSerializer();
  }

  /**
   * Returns the committed results: those of every file in dir, by file name, so each subtask's in
   * the order it wrote them. What a reader with {@code isolation.level=read_committed} sees.
   */
  public static List<Result> readCommitted(Path dir) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<Result> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          out.add(json.readValue(line, Result.class));
        }
      }
    }
    return out;
  }

  /** Returns the names of the files still pending in dir: pre-committed or open, never committed. */
  public static List<String> pending(Path dir) throws IOException {
    Path p = dir.resolve(".pending");
    if (!Files.isDirectory(p)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(p)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  /** Writes one subtask's results into its open transaction, one file per checkpoint. */
  static final class Writer implements CommittingSinkWriter<Result, String> {
    private final ObjectMapper json = new ObjectMapper();
    private final Path pending;
    private final String prefix;
    private int seq;
    private String name; // the open transaction's file, or null before the first write
    private FileChannel channel;
    private BufferedWriter out;

    Writer(Path dir, int subtask, int attempt) throws IOException {
      this.pending = Files.createDirectories(dir.resolve(".pending"));
      this.prefix = String.format("part-%04d-%04d-", subtask, attempt);
    }

    @Override
    public void write(Result r, SinkWriter.Context ctx) throws IOException {
      if (name == null) { // begin a transaction
        name = String.format("%s%06d.jsonl", prefix, seq++);
        channel = FileChannel.open(pending.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8));
      }
      out.write(json.writeValueAsString(r));
      out.newLine();
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      if (out != null) {
        out.flush();
      }
    }

    /** Pre-commits the open transaction: durable on disk, handed to Flink for the checkpoint. */
    @Override
    public Collection<String> prepareCommit() throws IOException {
      if (name == null) {
        return List.of(); // nothing written since the last checkpoint: no transaction
      }
      out.flush();
      channel.force(true); // fsync: the file survives a crash once the checkpoint holds its name
      out.close();
      String committable = name;
      name = null;
      return List.of(committable);
    }

    @Override
    public void close() throws IOException {
      if (out != null && name != null) {
        out.close(); // the open transaction, left pending: aborted
      }
    }
  }

  /** Publishes pre-committed files, idempotently: the course's Commit. */
  static final class FileCommitter implements Committer<String> {
    private final Path dir;

    FileCommitter(Path dir) {
      this.dir = dir;
    }

    @Override
    public void commit(Collection<CommitRequest<String>> requests) throws IOException {
      for (CommitRequest<String> req : requests) {
        Path from = dir.resolve(".pending").resolve(req.getCommittable());
        Path to = dir.resolve(req.getCommittable());
        if (Files.exists(from)) {
          Files.move(from, to, StandardCopyOption.ATOMIC_MOVE); // a rename: all or nothing
          syncDirectory(dir); // and the rename survives a power loss
        } else if (Files.exists(to)) {
          req.signalAlreadyCommitted(); // committed before a restart: nothing to do
        } else {
          req.signalFailedWithKnownReason(
              new IllegalStateException("transaction " + req.getCommittable() + " is neither pending nor committed"));
        }
      }
    }

    @Override
    public void close() {}

    private static void syncDirectory(Path dir) {
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true);
      } catch (IOException e) {
        throw new UncheckedIOException("fsync " + dir, e);
      }
    }
  }

  /** A committable is a file name: written as UTF-8, version 1. */
  static final class NameSerializer implements SimpleVersionedSerializer<String> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String name) {
      return name.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1) {
        throw new IOException("unknown committable version " + version);
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
