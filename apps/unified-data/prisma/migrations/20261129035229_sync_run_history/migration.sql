-- The sync history of each linked account: one row per finished run (the console's per-account history).
-- CreateTable
CREATE TABLE "sync_run_history" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "linked_account_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "finished_at" TIMESTAMPTZ(6) NOT NULL,
    "result" TEXT NOT NULL,
    "error" TEXT,
    "pages_written" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "sync_run_history_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sync_run_history_linked_account_id_started_at_id_idx" ON "sync_run_history"("linked_account_id", "started_at", "id");

-- AddForeignKey
ALTER TABLE "sync_run_history" ADD CONSTRAINT "sync_run_history_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
