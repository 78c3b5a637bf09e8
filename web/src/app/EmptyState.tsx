/** What the page shows when the log directory has no runs yet: how to write some. It updates by itself. */

export function EmptyState(props: { logdir: string | undefined }) {
  return (
    <section class="empty-state" data-testid="empty-state" aria-labelledby="empty-title">
      <h1 id="empty-title">No runs yet</h1>
      <p>
        {props.logdir ? (
          <>
            ridgeline is watching <code>{props.logdir}</code>, which holds no event files yet.
          </>
        ) : (
          "The log directory holds no event files yet."
        )}{" "}
        Runs appear here as soon as they are written; there is no need to reload the page.
      </p>
      <h2>Write logs from Python</h2>
      <pre>
        <code>{`from ridgeline import SummaryWriter

writer = SummaryWriter("runs/my-experiment")   # one folder per run
for step in range(1000):
    loss = train_step()
    writer.add_scalar("train/loss", loss, step)
writer.close()`}</code>
      </pre>
      <p>
        Then serve the parent folder: <code>ridgeline serve --logdir runs</code>.
      </p>
      <h2>Already using TensorBoard?</h2>
      <p>
        Logs from <code>torch.utils.tensorboard</code>, <code>tensorboardX</code>, TensorFlow's <code>tf.summary</code> and
        Keras' <code>TensorBoard</code> callback work as they are: point <code>--logdir</code> at the folder they write.
      </p>
      <p class="muted">
        Want something to look at first? <code>ridgeline demo --logdir demo_runs</code> writes a few example runs.
      </p>
    </section>
  );
}
