-- AlterTable
ALTER TABLE "tool_call_records" ADD COLUMN     "arguments" JSONB,
ADD COLUMN     "result" JSONB;

-- CreateTable
CREATE TABLE "tool_call_daily_usage" (
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "day" DATE NOT NULL,
    "tool_calls" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "blocked" INTEGER NOT NULL DEFAULT 0,
    "credits" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tool_call_daily_usage_pkey" PRIMARY KEY ("organization_id","day","environment")
);

-- The daily counts follow every INSERT into tool_call_records, whoever makes it: one upsert per
-- statement over its new rows (a transition table), so a batch of 200 records costs one statement
-- more, not 200. Rows are upserted in key order so concurrent batches lock them in the same order.
CREATE FUNCTION "tool_call_daily_usage_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "tool_call_daily_usage" AS d ("organization_id", "environment", "day", "tool_calls", "failures", "blocked", "credits")
  SELECT n."organization_id", n."environment", (n."occurred_at" AT TIME ZONE 'UTC')::date,
         COUNT(*), COUNT(*) FILTER (WHERE n."status" <> 'success'), COUNT(*) FILTER (WHERE n."status" = 'blocked'), COALESCE(SUM(n."credits"), 0)
  FROM new_records n
  GROUP BY 1, 2, 3
  ORDER BY 1, 3, 2
  ON CONFLICT ("organization_id", "day", "environment") DO UPDATE SET
    "tool_calls" = d."tool_calls" + EXCLUDED."tool_calls",
    "failures" = d."failures" + EXCLUDED."failures",
    "blocked" = d."blocked" + EXCLUDED."blocked",
    "credits" = d."credits" + EXCLUDED."credits";
  RETURN NULL;
END
$$;

CREATE TRIGGER "tool_call_records_daily_usage"
  AFTER INSERT ON "tool_call_records"
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "tool_call_daily_usage_add"();

-- The records stored before this migration, counted once.
INSERT INTO "tool_call_daily_usage" ("organization_id", "environment", "day", "tool_calls", "failures", "blocked", "credits")
SELECT "organization_id", "environment", ("occurred_at" AT TIME ZONE 'UTC')::date,
       COUNT(*), COUNT(*) FILTER (WHERE "status" <> 'success'), COUNT(*) FILTER (WHERE "status" = 'blocked'), COALESCE(SUM("credits"), 0)
FROM "tool_call_records"
GROUP BY 1, 2, 3;
