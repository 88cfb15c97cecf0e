package shop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LedgerTest {
    @Test
    void balanceNeverNegative() {
        int balance = 10;
        int[] payments = {4, 8};
        for (int payment : payments) {
            balance -= payment;
        }
        assertTrue(balance >= 0, "balance went negative"); // @marker junit_ledger_assert
    }

    @Test
    void depositsAdd() {
        assertTrue(3 + 4 == 7);
    }
}
