package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The crash test's flows: each batch adds a flow (a parent and one to four children), leases what
 * is due for an hour, completes the children with results of their own and acks the parents, whose
 * workers first read their children's results. After a restart: a flow is there whole or not at
 * all; no acknowledged flow, child result or parent ack is lost; a parent is due exactly when every
 * one of its children is done, and each done child's result is the one it was completed with.
 */
final class QueueFlowWorkload extends CrashWorkload {

  private static final String KEY = "flows";

  /** Flows whose QUEUE.FLOW was acknowledged: the parent's id, and its children's. */
  private final Map<String, List<String>> flows = new LinkedHashMap<>();

  /** Flows sent and not acknowledged: there whole or not at all. */
  private final Map<String, List<String>> sentFlows = new LinkedHashMap<>();

  /** Tokens of acknowledged leases not yet completed or acked, by job id. */
  private final Map<String, String> tokens = new LinkedHashMap<>();

  /** Children whose completion was acknowledged, and those sent but not acknowledged. */
  private final Set<String> childDone = new HashSet<>();

  private final Set<String> childSent = new HashSet<>();

  /** Parents whose ack was acknowledged, and those sent but not acknowledged. */
  private final Set<String> parentAcked = new HashSet<>();

  private final Set<String> parentAckSent = new HashSet<>();

  private long next;

  QueueFlowWorkload() {
    super("QUEUE.FLOW, QUEUE.COMPLETE of children, QUEUE.CHILDREN");
  }

  @Override
  void create(RespClient c) {}

  private static String result(String id) {
    return "result of " + id + " " + "r".repeat(id.length() * 17 % 150);
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    String root = "flow-" + cycle + "-" + next++;
    List<String> kids = new ArrayList<>();
    List<String> words = new ArrayList<>(List.of("QUEUE.FLOW", KEY, "report", "ID", root));
    for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
      String kid = root + "-part-" + i;
      kids.add(kid);
      words.addAll(List.of("CHILD", "part", "ID", kid));
    }
    sentFlows.put(root, kids);
    c.send(words(words));
    c.send("QUEUE.RESERVE", KEY, "COUNT", "8", "LEASE", "1h");
    c.flush();
    List<?> added = list(c.read(), "QUEUE.FLOW " + root);
    assertThat(added).as("QUEUE.FLOW %s", root).hasSize(kids.size() + 1);
    flows.put(root, sentFlows.remove(root));
    acknowledged++;
    for (Object job : list(c.read(), "QUEUE.RESERVE")) {
      List<?> f = (List<?>) job;
      tokens.put(RespClient.text(f.get(0)), Long.toString((Long) f.get(2)));
    }
    acknowledged++;
    List<String> held = new ArrayList<>(tokens.keySet());
    for (String id : held) {
      if (flows.containsKey(id)) {
        c.send("QUEUE.CHILDREN", KEY, id);
        c.send("QUEUE.ACK", KEY, id, tokens.get(id));
        parentAckSent.add(id);
      } else {
        c.send("QUEUE.COMPLETE", KEY, id, tokens.get(id), "RESULT", result(id));
        childSent.add(id);
      }
    }
    c.flush();
    for (String id : held) {
      if (flows.containsKey(id)) {
        List<?> children = list(c.read(), "QUEUE.CHILDREN " + id);
        checkAllDone(id, children);
        assertThat(c.read()).as("QUEUE.ACK %s", id).isEqualTo(1L);
        parentAcked.add(id);
      } else {
        assertThat(RespClient.text(c.read())).as("COMPLETE %s", id).isEqualTo("done");
        childDone.add(id);
      }
      tokens.remove(id);
      acknowledged++;
    }
  }

  /** A leased parent's children: every one done, with the result it was completed with. */
  private void checkAllDone(String root, List<?> children) {
    List<String> kids = flows.get(root);
    assertThat(children).as("children of %s", root).hasSize(kids.size());
    for (int i = 0; i < kids.size(); i++) {
      List<?> c = (List<?>) children.get(i);
      assertThat(RespClient.text(c.get(0))).isEqualTo(kids.get(i));
      assertThat(RespClient.text(c.get(1)))
          .as("%s, a child of a due parent", kids.get(i))
          .isEqualTo("done");
      assertThat(RespClient.text(c.get(2)))
          .as("result of %s", kids.get(i))
          .isEqualTo(result(kids.get(i)));
    }
  }

  private static String state(RespClient c, String id) throws IOException {
    Object job = c.call("QUEUE.JOB", KEY, id);
    if (job == null) {
      return null;
    }
    List<?> f = list(job, "QUEUE.JOB " + id);
    return RespClient.text(f.get(1));
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    for (Map.Entry<String, List<String>> e : sentFlows.entrySet()) {
      String root = e.getKey();
      if (state(c, root) != null) {
        flows.put(root, e.getValue()); // it was applied: whole, as checked below
        continue;
      }
      for (String kid : e.getValue()) {
        assertThat(state(c, kid)).as("%s of a flow that was not applied", kid).isNull();
      }
    }
    sentFlows.clear();
    for (Map.Entry<String, List<String>> e : flows.entrySet()) {
      String root = e.getKey();
      if (parentAcked.contains(root)) {
        assertThat(state(c, root)).as("acked parent %s", root).isNull();
        continue;
      }
      String parent = state(c, root);
      if (parent == null) {
        assertThat(parentAckSent).as("flow %s, acknowledged, is gone", root).contains(root);
        parentAcked.add(root); // its ack was applied
        tokens.remove(root);
        continue;
      }
      List<?> children = list(c.call("QUEUE.CHILDREN", KEY, root), "QUEUE.CHILDREN " + root);
      assertThat(children).as("children of %s", root).hasSize(e.getValue().size());
      boolean allDone = true;
      for (int i = 0; i < children.size(); i++) {
        List<?> ch = (List<?>) children.get(i);
        String kid = e.getValue().get(i);
        String s = RespClient.text(ch.get(1));
        if (s.equals("done")) {
          assertThat(childDone.contains(kid) || childSent.contains(kid))
              .as("%s done, never completed", kid)
              .isTrue();
          assertThat(RespClient.text(ch.get(2))).as("result of %s", kid).isEqualTo(result(kid));
          childDone.add(kid);
          tokens.remove(kid);
        } else {
          assertThat(childDone).as("%s, acknowledged done, is %s", kid, s).doesNotContain(kid);
          assertThat(s).as("%s", kid).isIn("ready", "leased");
          allDone = false;
        }
      }
      if (allDone) {
        assertThat(parent).as("parent %s of children all done", root).isIn("ready", "leased");
      } else {
        assertThat(parent).as("parent %s of children not done", root).isEqualTo("waiting-children");
      }
      if (tokens.containsKey(root)) {
        assertThat(parent).as("parent %s, leased for an hour", root).isEqualTo("leased");
      }
    }
    childSent.clear();
    parentAckSent.clear();
    flows.keySet().removeIf(parentAcked::contains);
  }
}
