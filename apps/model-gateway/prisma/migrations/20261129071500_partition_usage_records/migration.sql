-- usage_records becomes a table partitioned by month on "day" (issue 28): one row per model request
-- makes it the gateway's largest table, and its readers (GET /v1/usage, /v1/usage/daily's per-tag
-- reads, the console's figures) filter by day, so a range reads only its months. Monthly, not daily:
-- usage has no retention (it is the billing record), so partitions accumulate, twelve a year.
--
-- A partitioned table's key must hold the partition key: (id, day). The id is the queue event id and
-- "day" is computed from the occurred_at the same job carries, so a redelivered record still meets its
-- first copy (ON CONFLICT ("id", "day") DO NOTHING) and neither usage_daily (its triggers see only the
-- stored rows) nor key_month_spend (added from the INSERT's RETURNING) counts it twice.
--
-- The rows move in this transaction: rename, create the partitioned table with the same columns in the
-- same order, partitions over the rows' months plus two ahead (later ones are made by the gateway's
-- usage consumer; a DEFAULT partition catches a day with none), copy, drop the old table, then the
-- indexes and the triggers. The triggers come after the copy: usage_daily already counts those rows.
SET LOCAL TimeZone = 'UTC';

ALTER TABLE "usage_records" RENAME TO "usage_records_unpartitioned";
ALTER TABLE "usage_records_unpartitioned" RENAME CONSTRAINT "usage_records_pkey" TO "usage_records_unpartitioned_pkey";
DROP TRIGGER "usage_records_daily_add" ON "usage_records_unpartitioned";
DROP TRIGGER "usage_records_daily_remove" ON "usage_records_unpartitioned";
DROP INDEX "usage_records_key_hash_created_at_idx";
DROP INDEX "usage_records_organization_id_environment_day_idx";
DROP INDEX "usage_records_organization_id_spend_epoch_idx";

-- CreateTable
CREATE TABLE "usage_records" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "key_hash" TEXT NOT NULL,
    "project_id" UUID,
    "customer_id" UUID,
    "surface" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "vendor" TEXT,
    "outcome" TEXT NOT NULL,
    "error_code" TEXT,
    "status" INTEGER NOT NULL,
    "stream" BOOLEAN NOT NULL,
    "byok" BOOLEAN NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "cached_input_tokens" INTEGER NOT NULL,
    "cache_write_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "reasoning_tokens" INTEGER NOT NULL,
    "usage_estimated" BOOLEAN NOT NULL,
    "cost_micros" BIGINT NOT NULL,
    "tags" JSONB NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "ttft_ms" INTEGER,
    "spend_epoch" TEXT,
    "counted_at" TIMESTAMPTZ(3),
    "counted_model_request" BOOLEAN NOT NULL DEFAULT false,
    "counted_in_rate_limit" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "day" DATE NOT NULL,
    "spend_grant" TEXT,
    "billed_unit" TEXT,
    "billed_units" DOUBLE PRECISION,
    "web_search_requests" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id","day")
) PARTITION BY RANGE ("day");

CREATE TABLE "usage_records_default" PARTITION OF "usage_records" DEFAULT;

-- One partition per month from the oldest record's to two months ahead.
DO $$
DECLARE
  this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  m date;
BEGIN
  SELECT date_trunc('month', min("day"))::date INTO m FROM "usage_records_unpartitioned";
  m := least(coalesce(m, this_month), this_month);
  WHILE m <= this_month + interval '2 months' LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "usage_records" FOR VALUES FROM (%L) TO (%L)',
      'usage_records_p' || to_char(m, 'YYYYMM'), m, (m + interval '1 month')::date);
    m := (m + interval '1 month')::date;
  END LOOP;
END
$$;

INSERT INTO "usage_records" ("id", "organization_id", "environment", "key_hash", "project_id", "customer_id", "surface", "model", "vendor",
    "outcome", "error_code", "status", "stream", "byok", "input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens",
    "reasoning_tokens", "usage_estimated", "cost_micros", "tags", "latency_ms", "ttft_ms", "spend_epoch", "counted_at", "counted_model_request",
    "counted_in_rate_limit", "created_at", "day", "spend_grant", "billed_unit", "billed_units", "web_search_requests")
SELECT "id", "organization_id", "environment", "key_hash", "project_id", "customer_id", "surface", "model", "vendor",
    "outcome", "error_code", "status", "stream", "byok", "input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens",
    "reasoning_tokens", "usage_estimated", "cost_micros", "tags", "latency_ms", "ttft_ms", "spend_epoch", "counted_at", "counted_model_request",
    "counted_in_rate_limit", "created_at", "day", "spend_grant", "billed_unit", "billed_units", "web_search_requests"
FROM "usage_records_unpartitioned";

DROP TABLE "usage_records_unpartitioned";

-- CreateIndex
CREATE INDEX "usage_records_organization_id_environment_day_idx" ON "usage_records"("organization_id", "environment", "day");

-- CreateIndex
CREATE INDEX "usage_records_key_hash_created_at_idx" ON "usage_records"("key_hash", "created_at");

-- CreateIndex
CREATE INDEX "usage_records_organization_id_spend_epoch_idx" ON "usage_records"("organization_id", "spend_epoch");

-- The same statement triggers as before, on the partitioned table: an INSERT or DELETE on the parent
-- passes its rows as one transition table whichever partitions they are in.
CREATE TRIGGER "usage_records_daily_add"
  AFTER INSERT ON "usage_records"
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_add"();

CREATE TRIGGER "usage_records_daily_remove"
  AFTER DELETE ON "usage_records"
  REFERENCING OLD TABLE AS old_records
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_remove"();
