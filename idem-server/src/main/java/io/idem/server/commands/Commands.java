package io.idem.server.commands;

import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.commands.bloom.BloomCommands;
import io.idem.server.commands.bloom.RedisBloomCodec;
import io.idem.server.commands.cluster.ClusterCommands;
import io.idem.server.commands.cms.CmsCodec;
import io.idem.server.commands.cms.CmsCommands;
import io.idem.server.commands.counter.CounterCodec;
import io.idem.server.commands.counter.CounterCommands;
import io.idem.server.commands.cuckoo.CuckooCodec;
import io.idem.server.commands.cuckoo.CuckooCommands;
import io.idem.server.commands.cuckoo.RedisCuckooCodec;
import io.idem.server.commands.dedup.DedupCodec;
import io.idem.server.commands.dedup.DedupCommands;
import io.idem.server.commands.distinct.DistinctCodec;
import io.idem.server.commands.distinct.DistinctCommands;
import io.idem.server.commands.generic.ConnectionCommands;
import io.idem.server.commands.generic.GenericCommands;
import io.idem.server.commands.generic.TransactionCommands;
import io.idem.server.commands.hll.HllCodec;
import io.idem.server.commands.hll.HyperLogLogCommands;
import io.idem.server.commands.idemkey.IdemKeyCodec;
import io.idem.server.commands.idemkey.IdemKeyCommands;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.commands.queue.QueueCommands;
import io.idem.server.commands.tdigest.TdigestCodec;
import io.idem.server.commands.tdigest.TdigestCommands;
import io.idem.server.commands.throttle.ThrottleCodec;
import io.idem.server.commands.throttle.ThrottleCommands;
import io.idem.server.commands.topk.TopkCodec;
import io.idem.server.commands.topk.TopkCommands;
import io.idem.server.dispatch.CommandRegistry;
import io.idem.server.store.Codecs;
import java.util.List;

/** Every command family of the server, registered once at start. */
public final class Commands {

  private Commands() {}

  public static CommandRegistry registry() {
    return new CommandRegistry()
        .register(ConnectionCommands.specs())
        .register(TransactionCommands.specs())
        .register(GenericCommands.specs())
        .register(BloomCommands.specs())
        .register(CuckooCommands.specs())
        .register(CmsCommands.specs())
        .register(DedupCommands.specs())
        .register(CounterCommands.specs())
        .register(HyperLogLogCommands.specs())
        .register(DistinctCommands.specs())
        .register(TopkCommands.specs())
        .register(TdigestCommands.specs())
        .register(QueueCommands.specs())
        .register(IdemKeyCommands.specs())
        .register(ThrottleCommands.specs())
        .register(ClusterCommands.specs());
  }

  /** Every resident value type, for the store to load. */
  public static Codecs codecs() {
    return new Codecs(
        List.of(
            BloomCodec.INSTANCE,
            RedisBloomCodec.INSTANCE,
            CuckooCodec.INSTANCE,
            RedisCuckooCodec.INSTANCE,
            CmsCodec.INSTANCE,
            DedupCodec.INSTANCE,
            CounterCodec.INSTANCE,
            HllCodec.INSTANCE,
            DistinctCodec.INSTANCE,
            TopkCodec.INSTANCE,
            TdigestCodec.INSTANCE,
            QueueCodec.INSTANCE,
            IdemKeyCodec.INSTANCE,
            ThrottleCodec.INSTANCE));
  }
}
