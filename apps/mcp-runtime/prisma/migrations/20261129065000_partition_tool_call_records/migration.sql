-- tool_call_records becomes a table partitioned by day on occurred_at (issue 28): retention detaches and
-- drops a day's partition instead of deleting its rows one by one, and lists bounded in time read only
-- the days they cover. A primary key on a partitioned table must hold the partition key, so it becomes
-- (id, occurred_at): the id is the producer's event id and occurred_at travels in the same job, so a
-- redelivered record still meets its first copy (ON CONFLICT ("id", "occurred_at") DO NOTHING).
--
-- The rows move in this transaction: rename the table, create the partitioned one with the same
-- columns in the same order, its partitions over the rows' days, copy, drop the old table, then build
-- the indexes (faster once the rows are in) and the daily-usage trigger (after the copy, so the rows
-- already counted in tool_call_daily_usage are not counted again). Later partitions are made ahead by
-- the runtime's maintenance (packages/db partitions); the DEFAULT partition catches a row whose day
-- has none yet.
SET LOCAL TimeZone = 'UTC';

ALTER TABLE "tool_call_records" RENAME TO "tool_call_records_unpartitioned";
ALTER TABLE "tool_call_records_unpartitioned" RENAME CONSTRAINT "tool_call_records_pkey" TO "tool_call_records_unpartitioned_pkey";
DROP TRIGGER "tool_call_records_daily_usage" ON "tool_call_records_unpartitioned";
DROP INDEX "tool_call_records_organization_id_environment_occurred_at_i_idx";
DROP INDEX "tool_call_records_organization_id_environment_registered_us_idx";
DROP INDEX "tool_call_records_organization_id_billing_cycle_idx";
DROP INDEX "tool_call_records_organization_id_occurred_at_idx";
DROP INDEX "tool_call_records_occurred_at_idx";

-- CreateTable
CREATE TABLE "tool_call_records" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "tool_pack_id" UUID NOT NULL,
    "registered_user_id" UUID NOT NULL,
    "access_key_id" UUID NOT NULL,
    "tool_name" VARCHAR(255) NOT NULL,
    "connector_slug" VARCHAR(255) NOT NULL,
    "status" "ToolCallStatus" NOT NULL,
    "error_code" VARCHAR(64),
    "duration_ms" INTEGER NOT NULL,
    "credits" INTEGER NOT NULL,
    "billing_cycle" CHAR(7) NOT NULL,
    "overage" BOOLEAN NOT NULL DEFAULT false,
    "detections" JSONB NOT NULL DEFAULT '[]',
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "meter_epoch" UUID,
    "arguments" JSONB,
    "result" JSONB,

    CONSTRAINT "tool_call_records_pkey" PRIMARY KEY ("id","occurred_at")
) PARTITION BY RANGE ("occurred_at");

CREATE TABLE "tool_call_records_default" PARTITION OF "tool_call_records" DEFAULT;

-- One partition per UTC day from the oldest record (at most 120 days back: anything older is past any
-- retention and waits in the DEFAULT partition for the next sweep) to a week ahead.
DO $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  first_day date;
  d date;
BEGIN
  SELECT (min("occurred_at") AT TIME ZONE 'UTC')::date INTO first_day FROM "tool_call_records_unpartitioned";
  d := greatest(least(coalesce(first_day, today), today), today - 120);
  WHILE d <= today + 7 LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "tool_call_records" FOR VALUES FROM (%L) TO (%L)',
      'tool_call_records_p' || to_char(d, 'YYYYMMDD'), d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
    d := d + 1;
  END LOOP;
END
$$;

INSERT INTO "tool_call_records" ("id", "organization_id", "environment", "tool_pack_id", "registered_user_id", "access_key_id", "tool_name",
    "connector_slug", "status", "error_code", "duration_ms", "credits", "billing_cycle", "overage", "detections", "occurred_at", "meter_epoch",
    "arguments", "result")
SELECT "id", "organization_id", "environment", "tool_pack_id", "registered_user_id", "access_key_id", "tool_name",
    "connector_slug", "status", "error_code", "duration_ms", "credits", "billing_cycle", "overage", "detections", "occurred_at", "meter_epoch",
    "arguments", "result"
FROM "tool_call_records_unpartitioned";

DROP TABLE "tool_call_records_unpartitioned";

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_environment_occurred_at_i_idx" ON "tool_call_records"("organization_id", "environment", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_environment_registered_us_idx" ON "tool_call_records"("organization_id", "environment", "registered_user_id", "occurred_at" DESC);

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_billing_cycle_idx" ON "tool_call_records"("organization_id", "billing_cycle");

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_occurred_at_idx" ON "tool_call_records"("organization_id", "occurred_at");

-- CreateIndex
CREATE INDEX "tool_call_records_occurred_at_idx" ON "tool_call_records"("occurred_at");

-- The same statement trigger as before, now on the partitioned table: an INSERT into the parent (every
-- writer's) passes its stored rows as one transition table, whichever partitions they land in.
CREATE TRIGGER "tool_call_records_daily_usage"
  AFTER INSERT ON "tool_call_records"
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "tool_call_daily_usage_add"();
