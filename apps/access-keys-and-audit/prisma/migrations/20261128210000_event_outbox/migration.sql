-- Cache invalidations (pub/sub messages) written in the transaction of the key or organization change that causes them; the relay publishes them, and keeps those Redis did not take.
CREATE TABLE IF NOT EXISTS "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "event_outbox_next_attempt_at_idx" ON "event_outbox" ("next_attempt_at");
